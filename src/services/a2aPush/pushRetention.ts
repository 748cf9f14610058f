/**
 * Push configs and their notifications follow the runs' retention: once the ledger no longer holds
 * a run, its configs and outbox rows go, on the shared sweep schedule (as the stop requests do).
 */
import { Effect, Layer } from "effect"
import { keepSweeping, sweepOrphans } from "../../common/retention.ts"
import { Ledger } from "../runs/Ledger.ts"
import { PushConfigs } from "./PushConfigs.ts"

/** One pass: the configs (and notifications) of runs the ledger no longer holds are deleted; answers how many configs. */
export const sweepPushConfigs = Effect.gen(function* () {
  const push = yield* PushConfigs
  const ledger = yield* Ledger
  return yield* sweepOrphans(push.runIds, ledger.present, push.forget)
})

export const PushRetention = Layer.scopedDiscard(
  Effect.gen(function* () {
    const context = yield* Effect.context<PushConfigs | Ledger>()
    yield* keepSweeping("push configs of deleted runs", 0, () => Effect.provide(sweepPushConfigs, context))
  })
)
