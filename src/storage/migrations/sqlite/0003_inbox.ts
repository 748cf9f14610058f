import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The operator's inbox: skill changes and run approvals, one table. Columns the pending rules query
 * (`kind`, `state`, `client`, `name`, `content_key`, `run_id`, `request_id`) are real columns; the
 * rest of a row (the skill card, the approval's command and choices) is JSON in `payload`.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE inbox (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('skill_put', 'skill_delete', 'run_approval')),
    client TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'expired', 'withdrawn')),
    created_at TEXT NOT NULL,
    decided_at TEXT,
    decided_by TEXT,
    name TEXT,
    content_key TEXT,
    run_id TEXT,
    request_id TEXT,
    payload TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX inbox_state_created ON inbox (state, created_at)`
  yield* sql`CREATE INDEX inbox_pending_skill ON inbox (name) WHERE state = 'pending' AND kind IN ('skill_put', 'skill_delete')`
  yield* sql`CREATE INDEX inbox_pending_client ON inbox (client) WHERE state = 'pending' AND kind IN ('skill_put', 'skill_delete')`
  yield* sql`CREATE UNIQUE INDEX inbox_run_request ON inbox (run_id, request_id) WHERE kind = 'run_approval'`
})
