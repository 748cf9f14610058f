/**
 * The `instructions` each MCP server sends its clients (clients put them in the model's context):
 * how to delegate to Hermes in a few steps, in the tools' own names.
 */
import type { ServerKind } from "./catalog/listing.ts"
import { WINDOW_BYTES, kib } from "../../domain/limits.ts"

const AGENTS = [
  "Delegate tasks to a Hermes agent and follow them to the end:",
  "1. agents_list shows the agents (\"hermes\" or \"hermes/<profile>\") and whether each is up.",
  "2. agent_run starts a run and returns at once with its run_id (pass wait_s to wait a little for the first answer; reuse idempotency_key when you retry a start).",
  "3. agent_run_wait waits until the run ends or asks a question; keep each wait short (timeout_s under your tool timeout, e.g. 60) and call it again while timed_out is true. The run goes on between waits.",
  "4. When the run asks a clarifying question (pending), answer it with agent_run_answer, then wait again; agent_run_steer adds guidance to a running run, agent_run_stop ends it.",
  `5. Output comes in ${kib(WINDOW_BYTES)} windows: when truncated is true, call agent_run_status with offset=next_offset until it is false. agent_run_events pages through the run's events.`,
  "Errors read 'bridge.<code>: <message>'; the message says what to do next."
].join("\n")

const MEMORY = [
  "Read and write the Hermes agents' memory:",
  "memory_search finds entries by words, memory_list lists a namespace, memory_add stores a short fact, memory_delete removes one by id.",
  "Errors read 'bridge.<code>: <message>'; the message says what to do next."
].join("\n")

export const SERVER_INSTRUCTIONS: Record<ServerKind, string> = { agents: AGENTS, memory: MEMORY }
