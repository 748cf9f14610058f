/**
 * Wake-ups for waiters (docs/ARCHITECTURE.md): one `SubscriptionRef` per live run holding the little a
 * waiter decides on (status, newest seq, whether a clarification is pending). Its `changes` stream
 * starts with the current value, so a waiter that subscribes after a change still sees it.
 *
 * Writers publish after each committed ledger write. Publishing keeps the newest state only (a later
 * commit can be published before an earlier one), and a terminal state drops the map's entry: the
 * run will not change again, and a waiter still holding the ref has already been told. Only a waiter
 * creates an entry (it then publishes a fresh read); a publish never does, so one that arrives after
 * the terminal one (a stop, or a waiter's read from just before the end) cannot bring it back.
 */
import { Effect, Option, SubscriptionRef } from "effect"
import type { RunStatus } from "../../domain/runs/view.ts"
import { isTerminal } from "../../domain/runs/view.ts"
import type { RunRecord } from "./Ledger.ts"

export interface RunSignal {
  readonly status: RunStatus
  readonly lastSeq: number
  readonly pending: boolean
  /** Ledger `updated_at`: orders two states with the same seq (a status-only change). */
  readonly updatedAt: number
}

export const signalOf = (r: RunRecord): RunSignal => ({
  status: r.status,
  lastSeq: r.lastSeq,
  pending: r.pending !== null,
  updatedAt: r.updatedAt
})

/** A wait ends on a terminal status or a pending clarification (an approval does not end it). */
export const endsWait = (s: RunSignal): boolean => isTerminal(s.status) || s.pending

const newer = (next: RunSignal, current: RunSignal): boolean =>
  next.lastSeq > current.lastSeq ||
  (next.lastSeq === current.lastSeq && next.updatedAt >= current.updatedAt && (next.status !== current.status || next.pending !== current.pending))

export interface RunSignals {
  /** Publishes a committed state of the run to its waiters. */
  readonly publish: (record: RunRecord) => Effect.Effect<void>
  /**
   * The run's signal ref, created from `record` when there is none. The caller must then publish a
   * fresh read of the ledger (closing the gap between its read and the ref's creation).
   */
  readonly ref: (record: RunRecord) => Effect.Effect<SubscriptionRef.SubscriptionRef<RunSignal>>
  /** Live entries (a gauge for tests and benchmarks). */
  readonly size: Effect.Effect<number>
}

export const makeRunSignals: Effect.Effect<RunSignals> = Effect.sync(() => {
  const refs = new Map<string, SubscriptionRef.SubscriptionRef<RunSignal>>()

  const getOrCreate = (record: RunRecord) =>
    Effect.suspend(() => {
      const existing = refs.get(record.runId)
      if (existing !== undefined) return Effect.succeed(existing)
      return SubscriptionRef.make(signalOf(record)).pipe(
        Effect.tap((created) =>
          Effect.sync(() => {
            // Another fiber may have created one meanwhile; keep the first so no waiter is orphaned.
            if (!refs.has(record.runId) && !isTerminal(record.status)) refs.set(record.runId, created)
          })
        ),
        Effect.map((created) => refs.get(record.runId) ?? created)
      )
    })

  const publish = (record: RunRecord) =>
    Effect.gen(function* () {
      const next = signalOf(record)
      const existing = Option.fromNullable(refs.get(record.runId))
      // Nobody waits on the run (or it has ended): nothing to wake.
      if (Option.isNone(existing)) return
      yield* SubscriptionRef.updateSome(existing.value, (current) => (newer(next, current) ? Option.some(next) : Option.none()))
      if (isTerminal(next.status)) yield* Effect.sync(() => refs.delete(record.runId))
    })

  return { publish, ref: getOrCreate, size: Effect.sync(() => refs.size) }
})
