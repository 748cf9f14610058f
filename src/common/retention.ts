/**
 * Retention sweeps, shared by the run ledger and the inbox: delete what ended more than `days` ago,
 * at start and then every `SWEEP_EVERY`, on Effect's Clock (so tests move time with the TestClock).
 */
import { Array as Arr, Clock, Effect, Schedule } from "effect"
import { DAY_MS } from "../domain/limits.ts"

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

/** Run ids asked about per statement, well under SQLite's bound on a statement's parameters. */
const IDS_PER_STATEMENT = 500

/**
 * One pass over a table whose rows follow the runs' retention (stop requests, push configs): the run
 * ids it holds (`held`) that the ledger no longer has (`present`) are handed to `forget`; answers how
 * many rows went. The table's owner is asked, never its SQL.
 */
export const sweepOrphans = <E1, E2, E3, R>(
  held: Effect.Effect<ReadonlyArray<string>, E1, R>,
  present: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>, E2, R>,
  forget: (ids: ReadonlyArray<string>) => Effect.Effect<number, E3, R>
): Effect.Effect<number, E1 | E2 | E3, R> =>
  Effect.flatMap(held, (all) =>
    Effect.reduce(Arr.chunksOf(all, IDS_PER_STATEMENT), 0, (removed, ids) =>
      Effect.flatMap(present(ids), (kept) => Effect.map(forget(ids.filter((id) => !kept.has(id))), (n) => removed + n))))
