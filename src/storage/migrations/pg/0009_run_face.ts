import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Which face started a run, on PostgreSQL (../sqlite/0009_run_face.ts). */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE runs ADD COLUMN face TEXT NOT NULL DEFAULT 'mcp' CHECK (face IN ('mcp', 'a2a'))`
})
