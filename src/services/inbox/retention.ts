/**
 * Inbox retention: rows closed (approved, denied, expired, withdrawn) more than
 * `inbox.history_retention_days` ago are deleted; a pending row is never deleted, however old. Only
 * rows go: parked skill versions on disk belong to the skill store and stay. Sweeps on the runs'
 * schedule (at start, then every `SWEEP_EVERY`), on Effect's Clock.
 */
import { Clock, Effect, Layer, Schedule } from "effect"
import { AppConfig } from "../../config/AppConfig.ts"
import { DAY_MS, SWEEP_EVERY } from "../runs/retention.ts"
import { InboxStore, type InboxStoreShape } from "./InboxStore.ts"

/** One sweep: deletes what was closed before now − `days`; returns how many rows went. */
export const sweepInboxHistory = (store: InboxStoreShape, days: number) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const removed = yield* store.deleteHistory(new Date(now - days * DAY_MS).toISOString())
    if (removed > 0) yield* Effect.logInfo(`inbox retention removed ${removed} closed rows`)
    return removed
  })

/** The sweeper fiber, in the layer's scope; a failed sweep (already logged by the store) is tried again next time. */
export const InboxRetentionLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const store = yield* InboxStore
    const days = (yield* AppConfig).inbox.history_retention_days
    yield* sweepInboxHistory(store, days).pipe(
      Effect.catchAll(() => Effect.succeed(0)),
      Effect.repeat(Schedule.spaced(SWEEP_EVERY)),
      Effect.forkScoped
    )
  })
)
