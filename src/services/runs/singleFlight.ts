/**
 * One flight per key: the first caller with a key runs its work (in the given scope, so it finishes
 * even when that caller goes away); callers that arrive with the same key while it runs wait for its
 * outcome instead of running their own. `agent_run` uses it per idempotency key, so a burst of
 * retries of one request is one start, and none of them is counted against the cap by another.
 */
import { Deferred, Effect, type Exit, Fiber, type Scope } from "effect"

export interface Flight<A, E> {
  readonly exit: Exit.Exit<A, E>
  /** This caller ran the work (the others joined it). */
  readonly led: boolean
  /** What the leader said about its work (for `agent_run`, the request's fingerprint). */
  readonly leaderTag: string
}

export const makeSingleFlight = <A, E>() => {
  const open = new Map<string, { readonly done: Deferred.Deferred<A, E>; readonly tag: string }>()

  const flight = (key: string, tag: string, work: Effect.Effect<A, E>, scope: Scope.Scope): Effect.Effect<Flight<A, E>> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.gen(function* () {
        const mine = yield* Deferred.make<A, E>()
        // Look up and claim in one synchronous step: two callers cannot both lead.
        const current = open.get(key)
        if (current !== undefined) {
          const exit = yield* restore(Effect.exit(Deferred.await(current.done)))
          return { exit, led: false, leaderTag: current.tag }
        }
        open.set(key, { done: mine, tag })
        const fiber = yield* work.pipe(
          Effect.onExit((exit) => Effect.zipRight(Effect.sync(() => open.delete(key)), Deferred.done(mine, exit))),
          Effect.forkIn(scope)
        )
        const exit = yield* restore(Effect.exit(Fiber.join(fiber)))
        return { exit, led: true, leaderTag: tag }
      })
    )

  /** Keys with a flight under way (for tests). */
  const size = () => open.size
  return { flight, size }
}
