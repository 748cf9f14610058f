import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Per-client quotas, PostgreSQL's form of the SQLite migration beside it: each note keeps its
 * stored size (`bytes`: the UTF-8 bytes of its text and of its tags' JSON), `(client, bytes)` is
 * indexed for the count and sum of one client's notes, and existing notes are measured here; push
 * configs are indexed by client, for their count.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE memory_notes ADD COLUMN bytes BIGINT NOT NULL DEFAULT 0`
  yield* sql`UPDATE memory_notes SET bytes = octet_length(text) + octet_length(tags)`
  yield* sql`CREATE INDEX memory_notes_client ON memory_notes (client, bytes)`
  // A client's push configs are counted against `limits.push_configs_per_client` when one is added.
  yield* sql`CREATE INDEX a2a_push_configs_client ON a2a_push_configs (client)`
})
