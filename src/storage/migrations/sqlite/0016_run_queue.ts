import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The run queue (issue 38, src/services/runs/admission.ts): a start Hermes has no capacity for is
 * a `runs` row with status `queued` and no Hermes run id yet (`''`). `admitted_at` is when a run got
 * its Hermes slot (its start, or its claim from the queue: a queued run with `admitted_at` is on its
 * way to Hermes): the queue's round-robin gives the next slot to the client admitted least recently. Existing runs were admitted when created.
 * Indexed: the queued rows of a profile in order, and the live rows of a profile by client.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE runs ADD COLUMN admitted_at INTEGER`
  yield* sql`UPDATE runs SET admitted_at = created_at`
  yield* sql`CREATE INDEX runs_queued ON runs (profile, created_at) WHERE status = 'queued'`
  yield* sql`CREATE INDEX runs_live_profile ON runs (profile, client) WHERE ended_at IS NULL`
  yield* sql`CREATE INDEX runs_admitted ON runs (profile, client, admitted_at)`
  // A start going to Hermes at once holds a slot of its profile here until its run is recorded
  // (or refused), so that replicas count it before it is a run (services/runs/ledgerQueue.ts).
  yield* sql`CREATE TABLE run_slots (token TEXT PRIMARY KEY, profile TEXT NOT NULL, at INTEGER NOT NULL)`
  yield* sql`CREATE INDEX run_slots_profile ON run_slots (profile, at)`
})
