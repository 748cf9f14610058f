/**
 * Retention: runs that ended more than `run_retention_days` ago are deleted with their events and
 * output (and so is their idempotency key). Runs at start and then hourly, on Effect's Clock.
 */
import { Clock, Effect, Schedule } from "effect"
import type { LedgerShape } from "./Ledger.ts"

export const DAY_MS = 24 * 60 * 60 * 1000
export const SWEEP_EVERY = "1 hour"

/** One sweep: deletes what ended before now − `days`; returns how many runs went. */
export const sweepOnce = (ledger: LedgerShape, days: number) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const removed = yield* ledger.sweep(now - days * DAY_MS)
    if (removed > 0) yield* Effect.logInfo(`retention removed ${removed} ended runs`)
    return removed
  })

/** The sweeper fiber, in the caller's scope; a failed sweep is logged and tried again next time. */
export const startRetention = (ledger: LedgerShape, days: number) =>
  sweepOnce(ledger, days).pipe(
    Effect.catchAll((e) => Effect.logError("run retention sweep failed", e).pipe(Effect.as(0))),
    Effect.repeat(Schedule.spaced(SWEEP_EVERY)),
    Effect.forkScoped
  )
