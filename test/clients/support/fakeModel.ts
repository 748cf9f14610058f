/**
 * The model side of a scripted delegation, shared by the fake Anthropic and OpenAI APIs: given the
 * tool results the client has sent back so far, the next thing the "model" does. It calls
 * agents_list, then agent_run, then agent_run_wait until the run is done, then answers in text
 * with the run's id, status and output, so the test can compare what the client reports with what
 * the daemon holds. A client that ran `agent_run` as an MCP task in the background (Claude Code's
 * interactive mode) answers the tool call with a note, not the run: the script then ends its turn
 * and waits for the client's task notification, whose result is the run view it echoes. No model
 * is involved: the script is the point.
 */
import { isTerminal } from "../../../src/domain/runs/view.ts"

export type Step =
  | { readonly kind: "tool"; readonly tool: "agents_list" | "agent_run" | "agent_run_wait"; readonly input: Record<string, unknown> }
  | { readonly kind: "text"; readonly text: string }

export interface ToolOutcome {
  /** The bridge tool, or `task-notification` for a background task's result the client delivered. */
  readonly tool: string
  /** The text the client handed back as the tool's result. */
  readonly text: string
}

export const DELEGATED_INPUT = "Summarise the open pull requests"
export const FINAL_PREFIX = "DELEGATION DONE"
export const WAITING_PREFIX = "WAITING FOR TASK"
/** How Claude Code words a tool call it moved to the background as an MCP task. */
const BACKGROUNDED = /started server-side task (\S+?)\./
const MAX_WAITS = 10

/** The JSON object in a tool result's text (clients wrap it in various ways), or undefined. */
export const jsonIn = (text: string): Record<string, any> | undefined => {
  for (const candidate of [text, text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1)]) {
    try {
      const v = JSON.parse(candidate)
      if (typeof v === "object" && v !== null) return v as Record<string, any>
      if (typeof v === "string") return jsonIn(v)
    } catch {
      // try the next candidate
    }
  }
  return undefined
}

export const nextStep = (outcomes: ReadonlyArray<ToolOutcome>): Step => {
  const last = outcomes.at(-1)
  if (last === undefined) return { kind: "tool", tool: "agents_list", input: {} }
  const view = jsonIn(last.text)
  if (last.tool === "agents_list") {
    const agent = view?.["agents"]?.find((a: any) => a.keyed === true && a.health === "ok")?.name ?? "hermes"
    return { kind: "tool", tool: "agent_run", input: { agent, input: DELEGATED_INPUT } }
  }
  const backgrounded = last.tool === "agent_run" && view === undefined ? BACKGROUNDED.exec(last.text) : null
  if (backgrounded !== null) return { kind: "text", text: `${WAITING_PREFIX} ${backgrounded[1]}` }
  if (view === undefined || typeof view["run_id"] !== "string") {
    return { kind: "text", text: `${FINAL_PREFIX} FAILED: ${last.tool} returned no run view: ${last.text.slice(0, 500)}` }
  }
  const waits = outcomes.filter((o) => o.tool === "agent_run_wait").length
  const done = isTerminal(view["status"])
  if (!done && waits < MAX_WAITS) return { kind: "tool", tool: "agent_run_wait", input: { run_id: view["run_id"], timeout_s: 20 } }
  return { kind: "text", text: `${FINAL_PREFIX} run_id=${view["run_id"]} status=${view["status"]} output=${JSON.stringify(view["output"])}` }
}
