/**
 * Exactly one follower per live run (docs/ARCHITECTURE.md): a `FiberMap` keyed by run id inside the
 * service's scope, so closing the scope (shutdown) interrupts every follower while the runs go on in
 * Hermes and stay non-terminal in the ledger, to be re-attached on the next start.
 *
 * A follower that fails or dies is restarted with backoff, never dropped: the run stays followed
 * until the ledger says it ended. The followers do not belong to any tool call, so a cancelled
 * request never stops one.
 *
 * Replicas on one PostgreSQL database have a second implementation with the same loop
 * (`superviseFollow`): an `@effect/cluster` entity per run (`clusterFollowers.ts`); `RunFollowers.ts`
 * picks one.
 */
import { Cause, Duration, Effect, FiberMap, Schedule, type Scope } from "effect"
import { annotateFiberLogs } from "../../common/fiberLogs.ts"
import { lazyBackoff } from "../../common/lazyBackoff.ts"

/** Restart backoff: quick at first, then at most every 30 s, for as long as the run lives. */
export const RESTART_SCHEDULE = Schedule.exponential("250 millis", 2).pipe(
  Schedule.jittered,
  Schedule.modifyDelay((d) => Duration.min(d, Duration.seconds(30)))
)

export interface RunSupervisor {
  /**
   * Starts following the run unless it is already followed. `fresh`: the run was just started here,
   * so its first follow needs no status check; every restart (and a re-attach) does one.
   */
  readonly attach: (runId: string, options?: { readonly fresh?: boolean }) => Effect.Effect<void>
  /** Runs currently followed. */
  readonly size: Effect.Effect<number>
  readonly isFollowed: (runId: string) => Effect.Effect<boolean>
}

/**
 * The follow loop of one run, restarted with backoff until `followOnce` returns (the run is
 * terminal in the ledger). Succeeds then; fails only with an interruption-only cause (shutdown, or a
 * shard that moved), which the caller re-raises or ignores. Shared by both supervisors, each of
 * which runs it in a fiber of the run's own: its log lines carry the run's id from the fiber
 * (`annotateFiberLogs`, not a scoped annotation a parked run would hold frames for).
 */
export const superviseFollow = <E>(
  followOnce: (runId: string, resume: boolean) => Effect.Effect<void, E>,
  runId: string,
  fresh: boolean
): Effect.Effect<void, Cause.Cause<E>> => {
  let attempts = 0
  // Never reset: a follower that keeps failing backs off further, until its run ends. Made lazily
  // (`Effect.retry` would drive it, and hold its frames, from the start: on every parked run).
  const backoff = lazyBackoff(RESTART_SCHEDULE)
  const delay = Effect.ignore(backoff.next(undefined))
  const follow: Effect.Effect<void, Cause.Cause<E>> = Effect.suspend(() => followOnce(runId, !(fresh && attempts++ === 0))).pipe(
    // Defects are restarted like failures; only interruption ends a follower early.
    Effect.sandbox,
    Effect.catchAll((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.fail(cause)
        : Effect.logWarning("run follower failed; restarting", cause).pipe(Effect.zipRight(delay), Effect.zipRight(follow))
    )
  )
  return Effect.zipRight(annotateFiberLogs({ runId }), follow)
}

/** One daemon's followers: a FiberMap in the caller's scope (SQLite, or PostgreSQL without a cluster). */
export const makeRunSupervisor = <E>(
  followOnce: (runId: string, resume: boolean) => Effect.Effect<void, E>
): Effect.Effect<RunSupervisor, never, Scope.Scope> =>
  Effect.gen(function* () {
    const fibers = yield* FiberMap.make<string>()
    // Followers start from the service's own runtime, captured here, not from the fiber that attaches
    // the run (`FiberMap.run` forks with the caller's context and fiber references): a follower lives
    // as long as its run, and a tool call's context (a copy of every service's map with the request's
    // own services added) and its references would stay with every parked run for hours.
    const fork = yield* FiberMap.runtime(fibers)<never>()

    const supervised = (runId: string, fresh: boolean) =>
      superviseFollow(followOnce, runId, fresh).pipe(
        Effect.catchAll((cause) => Effect.logDebug("run follower ended", cause).pipe(Effect.annotateLogs({ runId }))),
        // Whatever region the service was built in, shutdown must be able to interrupt a follower.
        Effect.interruptible
      )

    return {
      attach: (runId, options) =>
        Effect.sync(() => {
          fork(runId, supervised(runId, options?.fresh ?? false), { onlyIfMissing: true })
        }),
      size: FiberMap.size(fibers),
      isFollowed: (runId) => FiberMap.has(fibers, runId)
    }
  })
