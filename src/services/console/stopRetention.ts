/**
 * The stop requests follow the runs' retention: once the ledger no longer holds a run (its own
 * sweep, `runs/retention.ts`), its stop request goes too, on the shared sweep schedule. The ledger
 * never touches this table; this asks it which runs it still holds (`Ledger.present`).
 */
import { Effect, Layer } from "effect"
import { keepSweeping, sweepOrphans } from "../../common/retention.ts"
import { Ledger } from "../runs/Ledger.ts"
import { StopRequests } from "./stopRequests.ts"

/** One pass: the requests of runs the ledger no longer holds are deleted; answers how many. */
export const sweepStopRequests = Effect.gen(function* () {
  const stops = yield* StopRequests
  const ledger = yield* Ledger
  return yield* sweepOrphans(stops.runIds, ledger.present, stops.forget)
})

/** The sweeper fiber, for the daemon's scope (the runs' sweeper is the run service's). */
export const StopRequestsRetention = Layer.scopedDiscard(
  Effect.gen(function* () {
    const context = yield* Effect.context<StopRequests | Ledger>()
    // `keepSweeping` hands a cut-off; a request's fate is its run's, so the cut-off is not needed.
    yield* keepSweeping("stop requests of deleted runs", 0, () => Effect.provide(sweepStopRequests, context))
  })
)
