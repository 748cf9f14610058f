import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The run queue, PostgreSQL's form of the SQLite migration beside it: `admitted_at` (epoch ms, when
 * a run got its Hermes slot; existing runs at their creation), the queued rows of a profile in
 * order, the live rows of a profile by client, and each client's admissions per profile.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE runs ADD COLUMN admitted_at BIGINT`
  yield* sql`UPDATE runs SET admitted_at = created_at`
  yield* sql`CREATE INDEX runs_queued ON runs (profile, created_at, insert_seq) WHERE status = 'queued'`
  yield* sql`CREATE INDEX runs_live_profile ON runs (profile, client) WHERE ended_at IS NULL`
  yield* sql`CREATE INDEX runs_admitted ON runs (profile, client, admitted_at)`
  // A start going to Hermes at once holds a slot of its profile here until its run is recorded
  // (or refused), so that replicas count it before it is a run (services/runs/ledgerQueue.ts).
  yield* sql`CREATE TABLE run_slots (token TEXT PRIMARY KEY, profile TEXT NOT NULL, at BIGINT NOT NULL)`
  yield* sql`CREATE INDEX run_slots_profile ON run_slots (profile, at)`
})
