import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The operator's stops (src/services/console/stopRequests.ts): one row per run an operator asked to
 * stop, from the console page or from `agent-bridge runs stop`. The CLI may run while the daemon is
 * down, so the request is a row the daemon carries out (at start, or when it notices the commit);
 * `done_at` and `outcome` record what became of it. The partial index is the daemon's queue.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE run_stop_requests (
    run_id TEXT PRIMARY KEY,
    requested_by TEXT NOT NULL,
    via TEXT NOT NULL,
    requested_at INTEGER NOT NULL,
    done_at INTEGER,
    outcome TEXT
  )`
  yield* sql`CREATE INDEX run_stop_requests_pending ON run_stop_requests (requested_at) WHERE done_at IS NULL`
})
