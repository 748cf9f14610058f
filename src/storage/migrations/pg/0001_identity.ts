import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Bridge clients on PostgreSQL: only the SHA-256 digest of each key is stored. Made in the shape
 * SQLite reaches after 0007 (times as epoch milliseconds, BIGINT), so 0007 has nothing to do here.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE clients (
    name TEXT PRIMARY KEY,
    key_digest TEXT NOT NULL UNIQUE,
    scopes TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    last_used_at BIGINT,
    revoked_at BIGINT
  )`
})
