import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The run ledger (src/services/runs/Ledger.ts). Times are epoch milliseconds. Output is stored in
 * append-only chunks so a streamed run never rewrites what it already wrote; events keep the newest
 * 500 per run. A run's idempotency key is stored prefixed with its client, so the unique
 * (profile, key) index is unique per client, profile and key.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE runs (
    run_id TEXT PRIMARY KEY,
    client TEXT NOT NULL,
    agent TEXT NOT NULL,
    profile TEXT NOT NULL,
    hermes_run_id TEXT NOT NULL,
    status TEXT NOT NULL,
    input TEXT NOT NULL,
    instructions TEXT,
    session_key TEXT,
    reasoning_effort TEXT,
    idempotency_key TEXT,
    fingerprint TEXT NOT NULL,
    error TEXT,
    usage TEXT,
    pending TEXT,
    last_seq INTEGER NOT NULL DEFAULT 0,
    output_bytes INTEGER NOT NULL DEFAULT 0,
    output_head TEXT NOT NULL DEFAULT '',
    hermes_event_id INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    ended_at INTEGER
  )`
  yield* sql`CREATE UNIQUE INDEX runs_idempotency ON runs (profile, idempotency_key) WHERE idempotency_key IS NOT NULL`
  yield* sql`CREATE INDEX runs_by_client ON runs (client, created_at)`
  yield* sql`CREATE INDEX runs_by_created ON runs (created_at)`
  yield* sql`CREATE INDEX runs_live ON runs (client) WHERE ended_at IS NULL`
  yield* sql`CREATE INDEX runs_ended ON runs (ended_at) WHERE ended_at IS NOT NULL`
  yield* sql`CREATE TABLE run_events (
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    at INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
  ) WITHOUT ROWID`
  yield* sql`CREATE TABLE run_output (
    run_id TEXT NOT NULL,
    start_byte INTEGER NOT NULL,
    end_byte INTEGER NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (run_id, start_byte)
  ) WITHOUT ROWID`
})
