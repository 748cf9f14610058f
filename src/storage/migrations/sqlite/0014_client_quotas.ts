import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Per-client quotas. Memory (`limits.memory_notes_per_client`, `limits.memory_bytes_per_client`):
 * each note keeps its stored size (`bytes`: the UTF-8 bytes of its text and of its tags' JSON), and
 * `(client, bytes)` is indexed, so that the count and the sum of one client's notes are read from
 * the index alone when a note is added, however large the notes. Existing notes are measured here.
 * Push configs (`limits.push_configs_per_client`): indexed by client, counted when one is added.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE memory_notes ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0`
  yield* sql`UPDATE memory_notes SET bytes = length(CAST(text AS BLOB)) + length(CAST(tags AS BLOB))`
  yield* sql`CREATE INDEX memory_notes_client ON memory_notes (client, bytes)`
  // A client's push configs are counted against `limits.push_configs_per_client` when one is added.
  yield* sql`CREATE INDEX a2a_push_configs_client ON a2a_push_configs (client)`
})
