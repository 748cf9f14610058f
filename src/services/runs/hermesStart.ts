/**
 * Starting a run in Hermes, shared by a start admitted at once (`startRun.ts`) and a queued run
 * admitted later (`admission.ts`). A start Hermes did not admit (429, 503 `gateway_draining`:
 * nothing started) is `NotAdmitted`, never a bridge error: the queue holds the run instead.
 */
import { Data, Duration, Effect, Option } from "effect"
import type { IdempotencyConflict, InvalidIdempotencyKey } from "../../domain/errors.ts"
import { hermesIdempotencyKey } from "../../domain/runs/keys.ts"
import { isNotAdmitted } from "../../hermes/client/failure.ts"
import type { HermesClientShape, HermesProfile, StartRunRequest, StartRunResult } from "../../hermes/client/HermesClient.ts"
import { OPERATION_CODES } from "../../hermes/client/operations.ts"
import { type HermesCallError, hermesError } from "../hermes-failures/hermesErrors.ts"

/** How many times one idempotency key may be started afresh after starts the bridge had to stop. */
const MAX_START_ATTEMPTS = 16

/** Hermes has no capacity for the start now (nothing was started); try again after `retryAfterMs`. */
export class NotAdmitted extends Data.TaggedError("NotAdmitted")<{ readonly retryAfterMs: number; readonly status: number }> {}

/** The key Hermes sees for the n-th attempt of a start (the first is the key itself). */
export const attemptKey = (prefixed: string, n: number): string => (n === 0 ? prefixed : `${prefixed}#${n}`)

export type HermesStartError = HermesCallError | IdempotencyConflict | InvalidIdempotencyKey | NotAdmitted

export const makeHermesStart = (hermes: HermesClientShape) => {
  const startOnce = (profile: HermesProfile, request: StartRunRequest) =>
    hermes.start(profile, request).pipe(
      Effect.mapError((f) =>
        isNotAdmitted(f)
          ? new NotAdmitted({ status: f.status, retryAfterMs: Duration.toMillis(Option.getOrElse(f.retryAfter, () => Duration.seconds(1))) })
          : hermesError(OPERATION_CODES.start)(f)
      )
    )

  /**
   * Starts the run in Hermes. Hermes replays a key it saw in the last 24 h, and the ledger had no run
   * for this key (it was looked up first), so a replay is one of two things: a start whose insert a
   * crash cut off (the run is real: adopt it, whatever its state), or a start the bridge itself
   * stopped after a failed insert, which the caller was told never happened (`store_unavailable`).
   * Only the bridge stops a run that has no ledger row, so a replayed `cancelled`/`stopping` run is
   * the second kind: start afresh under the key's next attempt (`<key>#<n>`, deterministic, so a
   * crash during a later attempt is found again the same way).
   */
  return (profile: HermesProfile, request: StartRunRequest) => {
    const attempt = (n: number): Effect.Effect<StartRunResult, HermesStartError> =>
      Effect.gen(function* () {
        const key = request.idempotencyKey === undefined ? undefined : hermesIdempotencyKey(attemptKey(request.idempotencyKey, n))
        const started = yield* startOnce(profile, { ...request, idempotencyKey: key })
        if (!started.replayed || key === undefined || n >= MAX_START_ATTEMPTS) return started
        const stoppedByUs = yield* hermes.status(profile, started.hermesRunId).pipe(
          Effect.map((s) => s.status === "cancelled" || s.status === "stopping"),
          // Unknown or unreachable: adopt what Hermes answered, as before this check.
          Effect.orElseSucceed(() => false)
        )
        if (!stoppedByUs) return started
        yield* Effect.logInfo("Hermes replayed a run the bridge stopped after a failed insert; starting the request afresh").pipe(
          Effect.annotateLogs({ hermesRunId: started.hermesRunId, attempt: n + 1 })
        )
        return yield* attempt(n + 1)
      })
    return attempt(0)
  }
}
