/**
 * Retention of the cluster's message tables (PostgreSQL, replicas only). Every run's `Follow`
 * (services/runs/clusterFollowers.ts) is one row of `cluster_messages`, answered by one row of
 * `cluster_replies` when the run has ended; `@effect/cluster` 0.60 marks a message `processed` then
 * but never deletes it (its deletes are for resetting an entity or an address), so both tables
 * would grow by a row per run for ever.
 *
 * The sweep deletes every processed `RunFollower` request with its replies and its other rows (an
 * interrupt, acknowledgements: the same `request_id`). Processed means the handler replied, which it
 * does only once the run is terminal in the ledger: nothing live is touched, and an unprocessed
 * `Follow` (a run still followed, or waiting for its next owner after a death) is never deleted.
 * A terminal run is never attached again (re-attach takes the non-terminal runs), so losing the
 * message's primary key (the deduplication of a second `Follow`) changes nothing.
 *
 * It runs on the retention schedule (`common/retention.ts`: at start, then hourly), on one replica
 * or several at once: each statement is idempotent.
 */
import { Sharding } from "@effect/cluster"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { keepSweeping } from "../../../common/retention.ts"
import { RunFollowerEntity } from "../clusterFollowers.ts"

/** Requests swept per statement: a bounded transaction whatever the backlog. */
const BATCH = 1000
/** Batches per sweep (the rest waits for the next sweep). */
const MAX_BATCHES = 100

/** One pass; answers how many requests went. */
export const sweepClusterMessages = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [present] = yield* sql<{ present: boolean }>`SELECT to_regclass('cluster_messages') IS NOT NULL AND to_regclass('cluster_replies') IS NOT NULL AS present`
  if (present?.present !== true) return 0
  let removed = 0
  for (let i = 0; i < MAX_BATCHES; i++) {
    const n = yield* sql.withTransaction(
      Effect.gen(function* () {
        // Oldest first by `id`, the message's snowflake (time-ordered).
        const done = yield* sql<{ request_id: string }>`
          SELECT request_id::text AS request_id FROM cluster_messages
          WHERE processed AND kind = 0 AND entity_type = ${RunFollowerEntity.type}
          ORDER BY id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`
        if (done.length === 0) return 0
        const ids = done.map((r) => r.request_id)
        yield* sql`DELETE FROM cluster_replies WHERE request_id::text IN ${sql.in(ids)}`
        yield* sql`DELETE FROM cluster_messages WHERE request_id::text IN ${sql.in(ids)}`
        return done.length
      })
    )
    removed += n
    if (n < BATCH) break
  }
  return removed
})

/**
 * The sweeper fiber in the daemon's scope. It asks for `Sharding` only to be built after the runner,
 * whose storage layers create the tables (on a new database the first sweep would find none).
 */
export const ClusterMessageRetention: Layer.Layer<never, never, SqlClient.SqlClient | Sharding.Sharding> = Layer.scopedDiscard(
  Effect.gen(function* () {
    yield* Sharding.Sharding
    const sql = yield* SqlClient.SqlClient
    // Processed is the whole rule (see above), so the sweep's cut-off is not needed.
    yield* keepSweeping("answered run follows of the cluster", 0, () => Effect.provideService(sweepClusterMessages, SqlClient.SqlClient, sql))
  })
)
