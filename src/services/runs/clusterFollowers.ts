/**
 * One follower per live run across replicas (PostgreSQL, docs/ARCHITECTURE.md "Who follows a run"):
 * each run is an `@effect/cluster` entity, `RunFollower`, keyed by its run id, with one persisted
 * message, `Follow`, whose primary key is the run id. Attaching a run sends that message (stored in
 * the cluster's message table first); the replica that holds the run's shard (a PostgreSQL advisory
 * lock) runs the handler: the same supervised follow loop as the single daemon's FiberMap
 * (`superviseFollow`), until the run is terminal in the ledger, and only then replies.
 *
 * A replica that dies leaves the message unanswered; the replica that takes the shard next reads it
 * again from storage and follows the run from the ledger's `last_seq` with a status check, as after a
 * restart. A second `Follow` for a run (a re-attach at boot, a retry) is deduplicated by the primary
 * key: never a second follower. Shutdown and a shard that moves interrupt the handler; cluster then
 * keeps the message unanswered (it is persisted), so the next owner picks it up.
 *
 * `size` and `isFollowed` answer for this replica: the runs whose handler runs here now.
 */
import { ClusterSchema, Entity, Sharding } from "@effect/cluster"
import { Rpc } from "@effect/rpc"
import { Effect, Layer, Schedule, Schema, type Scope } from "effect"
import { RunFollowers } from "./RunFollowers.ts"
import { superviseFollow, type RunSupervisor } from "./RunSupervisor.ts"

const Follow = Rpc.make("Follow", { payload: { runId: Schema.String }, primaryKey: (p) => p.runId }).annotate(
  ClusterSchema.Persisted,
  true
)

/** The entity type every replica registers; its id is the run id. */
export const RunFollowerEntity = Entity.make("RunFollower", [Follow])

/**
 * A send that could not be stored (the database out) is tried again, 200 ms doubling to 5 s apart,
 * for up to 2 minutes; past that the run waits for the next replica start's re-attach (logged).
 */
const SEND_RETRY = Schedule.exponential("200 millis").pipe(Schedule.union(Schedule.spaced("5 seconds")), Schedule.upTo("2 minutes"))

/** Fresh-start hints kept for runs whose entity lives on another replica: a bound, not a cache. */
const FRESH_HINTS_MAX = 1024

export const makeClusterRunSupervisor = <E>(
  followOnce: (runId: string, resume: boolean) => Effect.Effect<void, E>
): Effect.Effect<RunSupervisor, never, Scope.Scope | Sharding.Sharding> =>
  Effect.gen(function* () {
    const sharding = yield* Sharding.Sharding
    const followed = new Set<string>()
    // A run started by this replica and followed here skips its first status check; the message
    // itself never says "fresh", so a redelivered Follow (another replica, after a death) resumes.
    const freshHere = new Set<string>()

    yield* sharding.registerEntity(
      RunFollowerEntity,
      Effect.succeed({
        Follow: (request) =>
          Effect.suspend(() => {
            const runId = request.payload.runId
            const fresh = freshHere.delete(runId)
            followed.add(runId)
            return superviseFollow(followOnce, runId, fresh).pipe(
              // Interrupted (shutdown, the shard moved): no reply, so the next owner follows it.
              Effect.catchAll(() => Effect.interrupt),
              Effect.ensuring(Effect.sync(() => followed.delete(runId)))
            )
          })
      })
    )
    const client = yield* sharding.makeClient(RunFollowerEntity)

    const send = (runId: string) =>
      client(runId).Follow({ runId }, { discard: true }).pipe(
        // The run's Follow is being handled on this replica already: it is followed.
        Effect.catchTag("AlreadyProcessingMessage", () => Effect.void),
        Effect.tapError((e) => Effect.logWarning("could not hand the run to its follower yet; retrying", e)),
        Effect.retry(SEND_RETRY),
        Effect.catchAllCause((cause) =>
          Effect.logError("could not hand the run to its follower; a replica's next start follows it", cause)
        ),
        Effect.annotateLogs({ runId })
      )

    return {
      attach: (runId, options) =>
        Effect.suspend(() => {
          if (options?.fresh === true) {
            if (freshHere.size >= FRESH_HINTS_MAX) freshHere.delete(freshHere.values().next().value!)
            freshHere.add(runId)
          }
          return send(runId)
        }),
      size: Effect.sync(() => followed.size),
      isFollowed: (runId) => Effect.sync(() => followed.has(runId))
    }
  })

/** `RunFollowers` through the cluster's sharding (one runner per daemon). */
export const RunFollowersCluster: Layer.Layer<RunFollowers, never, Sharding.Sharding> = Layer.effect(
  RunFollowers,
  Effect.map(Sharding.Sharding, (sharding) =>
    RunFollowers.of({ make: (followOnce) => makeClusterRunSupervisor(followOnce).pipe(Effect.provideService(Sharding.Sharding, sharding)) })
  )
)
