/**
 * Retention sweeps, shared by the run ledger and the inbox: delete what ended more than `days` ago,
 * at start and then every `SWEEP_EVERY`, on Effect's Clock (so tests move time with the TestClock).
 */
import { Clock, Effect, Schedule } from "effect"

export const DAY_MS = 24 * 60 * 60 * 1000
export const SWEEP_EVERY = "1 hour"

/** One sweep: `remove` gets the cut-off (epoch ms, now − `days`) and answers how many items went. */
export const sweepOlderThan = <E, R>(what: string, days: number, remove: (cutoffMs: number) => Effect.Effect<number, E, R>) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const removed = yield* remove(now - days * DAY_MS)
    if (removed > 0) yield* Effect.logInfo(`retention removed ${removed} ${what}`)
    return removed
  })

/** The sweeper fiber, in the caller's scope; a failed sweep is logged and tried again next time. */
export const keepSweeping = <E, R>(what: string, days: number, remove: (cutoffMs: number) => Effect.Effect<number, E, R>) =>
  sweepOlderThan(what, days, remove).pipe(
    Effect.catchAll((e) => Effect.logError(`retention sweep of ${what} failed`, e).pipe(Effect.as(0))),
    Effect.repeat(Schedule.spaced(SWEEP_EVERY)),
    Effect.forkScoped
  )
