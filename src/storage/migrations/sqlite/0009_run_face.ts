import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Which face started a run (issue 27, item 4): `mcp` (the run tools, every run before this
 * migration) or `a2a` (SendMessage / SendStreamingMessage). Shown by the console, `/metrics` and
 * `agent-bridge runs`; never changes after the start.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE runs ADD COLUMN face TEXT NOT NULL DEFAULT 'mcp' CHECK (face IN ('mcp', 'a2a'))`
})
