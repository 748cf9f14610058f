/**
 * Reading a run back through the tools and checking its integrity: every stored event, the whole
 * output (all 16 KiB windows), and the rules the ledger promises (seq from 1, or the newest 500
 * when more were written; contiguous; one start; at most one terminal event).
 */
import type { ResilientMcp, ToolOutcome } from "./mcpClient.ts"
import { EVENTS_KEPT, EVENTS_PAGE_MAX } from "../../../src/domain/limits.ts"

/** One tool call, however the test makes it (MCP over HTTP, or the edge's runTool in-process). */
export type CallTool = (tool: string, args: Record<string, unknown>) => Promise<ToolOutcome>

/** A ResilientMcp as a CallTool that keeps retrying lost calls until `deadline`. */
export const viaMcp = (mcp: ResilientMcp, deadline: number): CallTool => (tool, args) => mcp.call(tool, args, { deadline })

export { EVENTS_KEPT }

export interface EventView {
  readonly seq: number
  readonly type: string
  readonly data: Record<string, unknown>
}

export const TERMINAL_EVENTS: ReadonlySet<string> = new Set(["run.completed", "run.failed", "run.cancelled", "run.interrupted"])
export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(["completed", "failed", "cancelled", "interrupted"])

const expectOk = (tool: string, outcome: ToolOutcome) => {
  if (!outcome.ok) throw new Error(`${tool} failed: ${outcome.text}`)
  return outcome.value
}

/** Every event the ledger still holds for the run, oldest first, paging with since_seq. */
export const readAllEvents = async (call: CallTool, runId: string): Promise<ReadonlyArray<EventView>> => {
  const all: Array<EventView> = []
  let since = 0
  for (;;) {
    const page = expectOk("agent_run_events", await call("agent_run_events", { run_id: runId, since_seq: since, limit: EVENTS_PAGE_MAX }))
    const events = page.events as ReadonlyArray<EventView>
    if (events.length === 0) return all
    all.push(...events)
    since = page.last_seq as number
  }
}

/** The whole output, window by window; also returns the final view. */
export const readOutput = async (call: CallTool, runId: string): Promise<{ readonly output: string; readonly view: any }> => {
  let offset = 0
  let output = ""
  for (;;) {
    const view = expectOk("agent_run_status", await call("agent_run_status", { run_id: runId, offset }))
    output += (view.output as string | null) ?? ""
    if (view.next_offset === null || view.next_offset === undefined) return { output, view }
    offset = view.next_offset as number
  }
}

/** What is wrong with a run's stored events, given the run's last_seq (empty: nothing). */
export const eventProblems = (events: ReadonlyArray<EventView>, lastSeq: number): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const first = lastSeq <= EVENTS_KEPT ? 1 : lastSeq - EVENTS_KEPT + 1
  const seqs = events.map((e) => e.seq)
  if (events.length !== lastSeq - first + 1) problems.push(`${events.length} events stored for seqs ${first}..${lastSeq}`)
  seqs.forEach((s, i) => {
    if (s !== first + i) problems.push(`event #${i} has seq ${s}, expected ${first + i}`)
  })
  if (new Set(seqs).size !== seqs.length) problems.push("a seq appears twice")
  const starts = events.filter((e) => e.type === "run.started").length
  if (starts !== (first === 1 ? 1 : 0)) problems.push(`${starts} run.started events`)
  const terminals = events.filter((e) => TERMINAL_EVENTS.has(e.type))
  if (terminals.length > 1) problems.push(`${terminals.length} terminal events`)
  if (terminals.length === 1 && events.at(-1) !== terminals[0]) problems.push("events after the terminal event")
  return problems.slice(0, 5)
}

/** The streamed text the events carry. */
export const textOf = (events: ReadonlyArray<EventView>): string =>
  events.filter((e) => e.type === "message.text").map((e) => String(e.data["text"] ?? "")).join("")
