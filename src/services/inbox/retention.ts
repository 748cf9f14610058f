/**
 * Inbox retention: rows closed (approved, denied, expired, withdrawn) more than
 * `inbox.history_retention_days` ago are deleted; a pending row is never deleted, however old. Only
 * rows go: parked skill versions on disk belong to the skill store and stay. Same schedule as the
 * runs' (`../retention.ts`).
 */
import { Effect, Layer } from "effect"
import { iso } from "../../common/time.ts"
import { AppConfig } from "../../config/AppConfig.ts"
import { keepSweeping, sweepOlderThan } from "../../common/retention.ts"
import { InboxStore, type InboxStoreShape } from "./InboxStore.ts"

const WHAT = "closed inbox rows"
const deleteBefore = (store: InboxStoreShape) => (cutoffMs: number) => store.deleteHistory(iso(cutoffMs))

/** One sweep: deletes what was closed before now − `days`; returns how many rows went. */
export const sweepInboxHistory = (store: InboxStoreShape, days: number) => sweepOlderThan(WHAT, days, deleteBefore(store))

/** The sweeper fiber, in the layer's scope. */
export const InboxRetentionLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const store = yield* InboxStore
    yield* keepSweeping(WHAT, (yield* AppConfig).inbox.history_retention_days, deleteBefore(store))
  })
)
