import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A2A push notifications (services/a2aPush/): `a2a_push_configs`, a client's webhook for one task
 * (its run), with the state last enqueued for it (`last_state`, what the dispatcher compares the
 * run's current state with); `a2a_push_outbox`, one row per notification to send, unique on
 * (run, config, state) so a dispatcher that runs twice enqueues once. Both go with their run (retention
 * sweep) and the outbox rows with their config.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE a2a_push_configs (
    run_id TEXT NOT NULL,
    config_id TEXT NOT NULL,
    client TEXT NOT NULL,
    url TEXT NOT NULL,
    token TEXT NOT NULL,
    auth_scheme TEXT NOT NULL,
    auth_credentials TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    last_state TEXT NOT NULL,
    finished INTEGER NOT NULL,
    PRIMARY KEY (run_id, config_id)
  )`
  yield* sql`CREATE INDEX a2a_push_configs_active ON a2a_push_configs (run_id) WHERE finished = 0`
  yield* sql`CREATE TABLE a2a_push_outbox (
    delivery_id TEXT PRIMARY KEY,
    config_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    state TEXT NOT NULL,
    run_seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    attempts INTEGER NOT NULL,
    next_at INTEGER NOT NULL,
    done_at INTEGER,
    outcome TEXT,
    UNIQUE (run_id, config_id, state)
  )`
  yield* sql`CREATE INDEX a2a_push_outbox_due ON a2a_push_outbox (next_at) WHERE done_at IS NULL`
})
