/**
 * What a run recovered from Hermes's status missed. A follow that lost the event stream (an older
 * build's 404 after a bridge restart, a stream that went quiet) learns the run's end from
 * `GET /v1/runs/{id}`, which says how the run ended but not the steps it took meanwhile: a tool
 * the ledger saw start never shows its `tool.completed`, an approval the ledger saw asked never
 * shows its `approval.responded`. A run that ended has finished every step, so before a terminal
 * event synthesised from a status (`synthetic: true`) the step events still open in the ledger
 * (and in the batch before it) are closed with synthesised ones: `synthetic: true`, the fields
 * the status told (the tool's name, the request's id), and `unknown` naming the fields Hermes would
 * have sent that the status cannot tell (the tool's `duration` and `error`, the approval's
 * `choice`), which are left out. A streamed terminal event is left as it came: Hermes sent every
 * step before it.
 */
import { Effect, Option } from "effect"
import { decodeEventData, type HermesEvent, isTerminalEvent, makeEvent } from "../../domain/runs/hermesEvents.ts"
import { EVENTS_KEPT } from "../../domain/limits.ts"
import type { LedgerShape } from "./Ledger.ts"

const isSynthesisedEnd = (e: HermesEvent) => isTerminalEvent(e.event) && e.data["synthetic"] === true

/** The steps still open after `steps` (type and data of each event, in order). */
const openSteps = (steps: ReadonlyArray<{ readonly type: string; readonly data: Readonly<Record<string, unknown>> }>) => {
  const tools: Array<string> = []
  const approvals: Array<string | null> = []
  for (const { type, data } of steps) {
    const id = typeof data["request_id"] === "string" ? data["request_id"] : null
    switch (type) {
      case "tool.started":
        tools.push(typeof data["tool"] === "string" ? data["tool"] : "")
        break
      case "tool.completed": {
        const at = tools.lastIndexOf(typeof data["tool"] === "string" ? data["tool"] : "")
        if (at >= 0) tools.splice(at, 1)
        break
      }
      case "approval.request":
        approvals.push(id)
        break
      case "approval.responded":
        // No id: Hermes resolved whatever approval the run had pending.
        if (id === null) approvals.length = 0
        else if (approvals.includes(id)) approvals.splice(approvals.indexOf(id), 1)
        break
      default:
        break
    }
  }
  return { tools, approvals }
}

/** The batch with the run's open steps closed before a terminal event synthesised from a status. */
export const withInferredClosings = (ledger: LedgerShape, runId: string, batch: ReadonlyArray<HermesEvent>) =>
  Effect.gen(function* () {
    const end = batch.findIndex(isSynthesisedEnd)
    if (end < 0) return batch
    const terminal = batch[end]!
    // The missed tail of the text the status carried came after the run's last step.
    let at = end
    while (at > 0 && batch[at - 1]!.event === "message.delta" && batch[at - 1]!.data["synthetic"] === true) at--
    const stored = yield* ledger.eventsAfter(runId, 0, EVENTS_KEPT)
    const before = batch.slice(0, at).map((e) => ({ type: e.event, data: e.data as Readonly<Record<string, unknown>> }))
    const { tools, approvals } = openSteps([...stored, ...before])
    if (tools.length === 0 && approvals.length === 0) return batch
    const envelope = { run_id: terminal.data["run_id"], timestamp: terminal.data["timestamp"], synthetic: true }
    // Built as the SSE edge decodes a frame, so each is typed as Hermes's own would be.
    const closing = (data: Record<string, unknown>) => Option.toArray(Option.map(decodeEventData(data), (d) => makeEvent(null, d)))
    const closings: Array<HermesEvent> = [
      ...approvals.flatMap((id) => closing({ event: "approval.responded", ...envelope, ...(id === null ? {} : { request_id: id }), unknown: ["choice"] })),
      // The innermost step first: a tool that asked for approval ends after the answer.
      ...tools.reverse().flatMap((tool) => closing({ event: "tool.completed", ...envelope, tool, unknown: ["duration", "error"] }))
    ]
    return [...batch.slice(0, at), ...closings, ...batch.slice(at)]
  })
