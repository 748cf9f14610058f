/**
 * Retention of the inbox page's operator sessions and sign-in failures (migration 0012): sessions
 * past their end, and addresses whose last wrong key has left the sign-in limit's window, are
 * deleted on the shared sweep schedule (`common/retention.ts`: at start, then hourly). Reads never
 * depend on it: an ended session is refused when it is read, and failures out of the window are not
 * counted; the sweep only keeps the tables small.
 */
import { Duration, Effect, Layer } from "effect"
import { keepSweeping } from "../../common/retention.ts"
import { OperatorSessions } from "./OperatorSessions.ts"
import { SignInFailures } from "./SignInFailures.ts"

/** One pass over the sessions: deletes those ended at `now`; answers how many went. */
export const sweepOperatorSessions = (now: number) => Effect.flatMap(OperatorSessions, (sessions) => sessions.expire(now))

/** One pass over the failures: deletes the addresses with no failure in the window ending at `now`. */
export const sweepSignInFailures = (now: number, window: Duration.DurationInput) =>
  Effect.flatMap(SignInFailures, (failures) => failures.expire(now - Duration.toMillis(window)))

/** The two sweeper fibers, in the layer's scope; `signInWindow` is the sign-in limit's window. */
export const InboxSessionsRetention = (signInWindow: Duration.DurationInput) =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const context = yield* Effect.context<OperatorSessions | SignInFailures>()
      // `keepSweeping` hands now − 0 days: the sweeps' own cut-offs are taken from it.
      yield* keepSweeping("ended inbox sessions", 0, (now) => Effect.provide(sweepOperatorSessions(now), context))
      yield* keepSweeping("old inbox sign-in failures", 0, (now) => Effect.provide(sweepSignInFailures(now, signInWindow), context))
    })
  )

