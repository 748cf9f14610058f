import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Bridge clients: only the SHA-256 digest of each key is stored. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE clients (
    name TEXT PRIMARY KEY,
    key_digest TEXT NOT NULL UNIQUE,
    scopes TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at TEXT
  )`
})
