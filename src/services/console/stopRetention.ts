/**
 * The stop requests follow the runs' retention: once the ledger no longer holds a run (its own
 * sweep, `runs/retention.ts`), its stop request goes too, on the shared sweep schedule. The ledger
 * never touches this table; this asks it which runs it still holds (`Ledger.present`).
 */
import { Array as Arr, Effect, Layer } from "effect"
import { keepSweeping } from "../../common/retention.ts"
import { Ledger } from "../runs/Ledger.ts"
import { StopRequests } from "./stopRequests.ts"

/** Run ids asked about per statement, well under SQLite's bound on a statement's parameters. */
const IDS_PER_STATEMENT = 500

/** One pass: the requests of runs the ledger no longer holds are deleted; answers how many. */
export const sweepStopRequests = Effect.gen(function* () {
  const stops = yield* StopRequests
  const ledger = yield* Ledger
  let removed = 0
  for (const ids of Arr.chunksOf(yield* stops.runIds, IDS_PER_STATEMENT)) {
    const kept = yield* ledger.present(ids)
    removed += yield* stops.forget(ids.filter((id) => !kept.has(id)))
  }
  return removed
})

/** The sweeper fiber, for the daemon's scope (the runs' sweeper is the run service's). */
export const StopRequestsRetention = Layer.scopedDiscard(
  Effect.gen(function* () {
    const context = yield* Effect.context<StopRequests | Ledger>()
    // `keepSweeping` hands a cut-off; a request's fate is its run's, so the cut-off is not needed.
    yield* keepSweeping("stop requests of deleted runs", 0, () => Effect.provide(sweepStopRequests, context))
  })
)
