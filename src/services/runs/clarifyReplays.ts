/**
 * A clarification the ledger recorded already is never asked again. Two sources can announce one
 * request twice: the follower's status check when it picks a run up (cluster: the replica that
 * follows a run is often not the one that started it, so its first follow is such a pick-up) and
 * the stream's own replay of the `clarify.request` frame after it. When a client answered through
 * another replica in between, the second announcement would make the answered request pending
 * again, and the run would show `waiting_for_clarification` while Hermes goes on. Hermes never
 * reuses a clarify id, so a `clarify.request` whose id is among the run's recorded ones is a replay
 * and is dropped before the batch is reduced. (Only the kept events are looked at, `EVENTS_KEPT`.)
 */
import { Effect } from "effect"
import { fieldsOf, type HermesEvent } from "../../domain/runs/hermesEvents.ts"
import { EVENTS_KEPT } from "../../domain/limits.ts"
import type { LedgerShape } from "./Ledger.ts"

const requestIdOf = (e: HermesEvent): string | null => {
  const d = fieldsOf(e, "clarify.request")
  return d === null ? null : d.clarify_id ?? d.request_id ?? null
}

/** The batch without the `clarify.request` events the run's ledger already holds (read only when the batch has one). */
export const withoutRecordedClarifications = (ledger: LedgerShape, runId: string, batch: ReadonlyArray<HermesEvent>) =>
  Effect.gen(function* () {
    if (!batch.some((e) => requestIdOf(e) !== null)) return batch
    const recorded = new Set(
      (yield* ledger.eventsAfter(runId, 0, EVENTS_KEPT))
        .filter((e) => e.type === "clarify.request" && typeof e.data["request_id"] === "string")
        .map((e) => e.data["request_id"] as string)
    )
    return batch.filter((e) => {
      const id = requestIdOf(e)
      return id === null || !recorded.has(id)
    })
  })
