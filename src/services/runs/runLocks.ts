/**
 * One permit per run, for the steps that must not interleave with the follower's commits of the
 * same run. A stop asks Hermes to stop and then records `run.stopping` (with who stopped it); Hermes
 * may send the run's `run.cancelled` before its answer to the stop arrives, and if the follower
 * committed that first, the stop would find the run ended and its record (the operator's, say)
 * would be lost. Holding the run's permit across the stop makes the follower's commit wait for it.
 * The permit is this process's own: a follower in another process (a replica) does not wait for
 * it, and the stop's record reaches the ledger before that follower's cancellation by another way
 * (the control stores what it asks first: `RunRecord.stopAsked`, `answerAsked`). An answer holds it too: Hermes echoes `clarify.responded` (without the answer) before it replies.
 * Entries exist only while someone holds or waits for a run's permit.
 */
import { Effect } from "effect"

export interface RunLocks {
  /** Runs `self` holding the run's permit, after the steps that hold it already. */
  readonly withRun: <A, E, R>(runId: string, self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** How many runs have a permit held or awaited (for tests: entries do not pile up). */
  readonly size: () => number
}

export const makeRunLocks = (): RunLocks => {
  const held = new Map<string, { readonly semaphore: Effect.Semaphore; users: number }>()
  return {
    withRun: (runId, self) =>
      Effect.suspend(() => {
        let entry = held.get(runId)
        if (entry === undefined) {
          entry = { semaphore: Effect.unsafeMakeSemaphore(1), users: 0 }
          held.set(runId, entry)
        }
        const mine = entry
        mine.users += 1
        return mine.semaphore.withPermits(1)(self).pipe(
          Effect.ensuring(Effect.sync(() => {
            mine.users -= 1
            if (mine.users === 0) held.delete(runId)
          }))
        )
      }),
    size: () => held.size
  }
}
