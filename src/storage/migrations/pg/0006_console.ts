import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** The operator's stops on PostgreSQL (../sqlite/0006_console.ts), times as BIGINT epoch milliseconds. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE run_stop_requests (
    run_id TEXT PRIMARY KEY,
    requested_by TEXT NOT NULL,
    via TEXT NOT NULL,
    requested_at BIGINT NOT NULL,
    done_at BIGINT,
    outcome TEXT
  )`
  yield* sql`CREATE INDEX run_stop_requests_pending ON run_stop_requests (requested_at) WHERE done_at IS NULL`
})
