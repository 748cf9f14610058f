/**
 * A request (clarification or approval) the ledger recorded already is never recorded again. Two
 * sources can announce one request twice: the follower's status check when it picks a run up
 * (cluster: the replica that follows a run is often not the one that started it, so its first
 * follow is such a pick-up; any bridge restart against a build whose status shows the pending
 * approval) and the stream's own replay of the request frame after it, or the status polling of a
 * follow whose event stream is gone. For a clarification, when a client answered through another
 * replica in between, the second announcement would make the answered request pending again, and
 * the run would show `waiting_for_clarification` while Hermes goes on; for an approval, the run's
 * events would show the same `approval.request` twice (the second synthesised) beside one inbox
 * row. Hermes never reuses a request id, so a `clarify.request` or `approval.request` whose id is
 * among the run's recorded ones of its kind is a replay and is dropped before the batch is reduced.
 * An approval without an id (Hermes 0.19/0.20) cannot be told apart and is kept; those builds'
 * status never shows an approval, so nothing synthesises one. (Only the kept events are looked at,
 * `EVENTS_KEPT`.)
 */
import { Effect } from "effect"
import { fieldsOf, type HermesEvent } from "../../domain/runs/hermesEvents.ts"
import { EVENTS_KEPT } from "../../domain/limits.ts"
import type { LedgerShape, StoredEvent } from "./Ledger.ts"

type Kind = "clarify.request" | "approval.request"

/** The request an event announces, with its kind; null for any other event or one without an id. */
const requestOf = (e: HermesEvent): { readonly kind: Kind; readonly id: string } | null => {
  const c = fieldsOf(e, "clarify.request")
  if (c !== null) {
    const id = c.clarify_id ?? c.request_id
    return id === undefined ? null : { kind: "clarify.request", id }
  }
  const a = fieldsOf(e, "approval.request")
  return a === null || a.request_id === undefined ? null : { kind: "approval.request", id: a.request_id }
}

const keyOf = (kind: string, id: string) => `${kind}\u0000${id}`

/** The requests the run's stored events announce, as `kind NUL id` keys. */
const recordedKeys = (events: ReadonlyArray<StoredEvent>): ReadonlySet<string> =>
  new Set(
    events
      .filter((e) => (e.type === "clarify.request" || e.type === "approval.request") && typeof e.data["request_id"] === "string")
      .map((e) => keyOf(e.type, e.data["request_id"] as string))
  )

/** The batch without the request events the run's ledger already holds (read only when the batch has one). */
export const withoutRecordedRequests = (ledger: LedgerShape, runId: string, batch: ReadonlyArray<HermesEvent>) =>
  Effect.gen(function* () {
    if (!batch.some((e) => requestOf(e) !== null)) return batch
    const recorded = recordedKeys(yield* ledger.eventsAfter(runId, 0, EVENTS_KEPT))
    const seen = new Set<string>()
    return batch.filter((e) => {
      const r = requestOf(e)
      if (r === null) return true
      const key = keyOf(r.kind, r.id)
      // Twice in one batch (a replayed frame beside a status's announcement) is a replay too.
      if (recorded.has(key) || seen.has(key)) return false
      seen.add(key)
      return true
    })
  })

/**
 * The id of the approval the run's stored events hold open (the last `approval.request` with no
 * `approval.responded` after it); null when none is open or it carried no id.
 */
export const openApprovalId = (ledger: LedgerShape, runId: string) =>
  Effect.map(ledger.eventsAfter(runId, 0, EVENTS_KEPT), (events) => {
    let open: string | null = null
    for (const e of events) {
      if (e.type === "approval.request") open = typeof e.data["request_id"] === "string" ? e.data["request_id"] : null
      else if (e.type === "approval.responded") open = null
    }
    return open
  })
