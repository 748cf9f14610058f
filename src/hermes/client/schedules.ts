/**
 * The two named backoff policies of the Hermes client. Both honour Hermes's `Retry-After` (Hermes
 * sends `Retry-After: 1` with 429 `rate_limit_exceeded` and 503 `gateway_draining`).
 */
import { Duration, Option, Schedule } from "effect"
import { type HermesFailure, isNotAdmitted, isTransient } from "./failure.ts"

/** Never wait longer than this for one `Retry-After`, whatever Hermes asks. */
const RETRY_AFTER_CAP = Duration.seconds(10)

const retryAfterOf = (f: HermesFailure): Duration.Duration =>
  f._tag === "HermesStatus"
    ? Duration.min(Option.getOrElse(f.retryAfter, () => Duration.zero), RETRY_AFTER_CAP)
    : Duration.zero

/**
 * Safe retries of one request (reads; a start only when it carries an idempotency key): up to 3
 * more tries, exponential from 200 ms with jitter, never sooner than `Retry-After`, and only for
 * failures a repeat may cure (no answer, timeout, 429, 5xx).
 */
export const hermesRetrySchedule: Schedule.Schedule<HermesFailure, HermesFailure> = Schedule.exponential("200 millis", 2).pipe(
  Schedule.jittered,
  Schedule.intersect(Schedule.recurs(3)),
  Schedule.whileInput(isTransient),
  Schedule.zipRight(Schedule.identity<HermesFailure>()),
  Schedule.modifyDelay((failure, delay) => Duration.max(delay, retryAfterOf(failure)))
)

/**
 * Reconnecting a run's event stream (or polling its status through an outage): exponential from
 * 100 ms, capped at 5 s between attempts, with jitter, indefinitely (the run's outcome is only
 * Hermes's to tell); `Retry-After` still wins when it is longer. The follower resets it whenever an
 * attempt makes progress.
 */
export const followReconnectSchedule: Schedule.Schedule<HermesFailure, HermesFailure> = Schedule.exponential("100 millis", 2).pipe(
  Schedule.either(Schedule.spaced("5 seconds")),
  Schedule.jittered,
  Schedule.zipRight(Schedule.identity<HermesFailure>()),
  Schedule.modifyDelay((failure, delay) => Duration.max(delay, retryAfterOf(failure)))
)

/**
 * A start's safe retries (one with an idempotency key, on a build that honours keys): as
 * `hermesRetrySchedule`, except that a start Hermes did not admit (429, 503 `gateway_draining`) is
 * not retried here: it is answered at once and waits in the bridge's queue, which honours
 * `Retry-After` itself (services/runs/admission.ts).
 */
export const hermesStartRetrySchedule: Schedule.Schedule<HermesFailure, HermesFailure> = hermesRetrySchedule.pipe(
  Schedule.whileInput((f: HermesFailure) => !isNotAdmitted(f))
)
