/**
 * A run as an A2A task (docs/REFERENCE.md, "A2A"): a table over the run's phase
 * (`domain/runs/phase.ts`, which also words the status messages). Pure: the handler reads the views
 * through the runs service, which has redacted every text in them already.
 *
 * | run status                                   | task state                                     |
 * | queued                                       | SUBMITTED                                      |
 * | running, stopping                            | WORKING                                        |
 * | waiting_for_approval                         | WORKING, the status message names the command  |
 * | a clarification pending (any live status)     | INPUT_REQUIRED, the question as the message    |
 * | completed                                    | COMPLETED, the output as the `output` artifact |
 * | failed, interrupted                          | FAILED, the error as the message               |
 * | cancelled                                    | CANCELED                                       |
 *
 * The operator's approval is WORKING, not AUTH_REQUIRED: the spec keeps AUTH_REQUIRED for
 * credentials the *client* must supply, and nothing the client sends can approve a command (only
 * the operator, in the inbox); a client that treats AUTH_REQUIRED as its turn would stall.
 */
import { Role, TaskState, type Artifact, type Message, type Part, type Task } from "@a2a-js/sdk"
import { type PhaseKey, phaseKey, phaseOf, phaseSentence, questionWithChoices } from "../../domain/runs/phase.ts"
import type { RunListItem, RunView } from "../../domain/runs/view.ts"

/** The fields a task is made from: a run view or a list item. */
export type RunFacts = Pick<
  RunView,
  "run_id" | "agent" | "status" | "created_at" | "updated_at" | "input_preview" | "error" | "pending" | "last_seq" | "awaiting_approval" | "session_key"
>

/** The task state of each phase (the run's phase: `domain/runs/phase.ts`). */
export const STATE_OF: Readonly<Record<PhaseKey, TaskState>> = {
  queued: TaskState.TASK_STATE_SUBMITTED,
  working: TaskState.TASK_STATE_WORKING,
  stopping: TaskState.TASK_STATE_WORKING,
  awaiting_operator: TaskState.TASK_STATE_WORKING,
  needs_answer: TaskState.TASK_STATE_INPUT_REQUIRED,
  ended_ok: TaskState.TASK_STATE_COMPLETED,
  ended_failed: TaskState.TASK_STATE_FAILED,
  ended_interrupted: TaskState.TASK_STATE_FAILED,
  ended_cancelled: TaskState.TASK_STATE_CANCELED
}

/**
 * Whether the status message says the phase's sentence: a running, queued or completed task says
 * nothing beyond its state, and a cancelled one only why (when it is known).
 */
export const SAYS_SENTENCE: Readonly<Record<PhaseKey, boolean>> = {
  queued: false,
  working: false,
  stopping: true,
  awaiting_operator: true,
  needs_answer: true,
  ended_ok: false,
  ended_failed: true,
  ended_interrupted: true,
  ended_cancelled: true
}

export const stateOf = (run: RunFacts): TaskState => STATE_OF[phaseKey(phaseOf(run))]

/** A task's contextId: the run's session key (A2A starts always set one), else the run id. */
export const contextOf = (run: RunFacts): string => run.session_key ?? run.run_id

export const textPart = (text: string): Part => ({ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" })
const dataPart = (value: unknown): Part => ({ content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "application/json" })

const message = (run: RunFacts, messageId: string, role: Role, parts: Array<Part>): Message => ({
  messageId,
  contextId: contextOf(run),
  taskId: run.run_id,
  role,
  parts,
  metadata: undefined,
  extensions: [],
  referenceTaskIds: []
})

/** What the status says in words (and, for a question, the question's data for a program). */
const statusParts = (run: RunFacts): Array<Part> | undefined => {
  const phase = phaseOf(run)
  if (!SAYS_SENTENCE[phaseKey(phase)]) return undefined
  if (phase._tag === "NeedsAnswer") {
    const q = phase.question
    return [textPart(questionWithChoices(q)), dataPart({ request_id: q.request_id, question: q.question, choices: q.choices, multi_select: q.multi_select })]
  }
  if (phase._tag === "Ended" && phase.outcome === "cancelled" && phase.why === null) return undefined
  return [textPart(phaseSentence(phase))]
}

const statusMessage = (run: RunFacts): Message | undefined => {
  const parts = statusParts(run)
  return parts === undefined ? undefined : message(run, `${run.run_id}:status:${run.last_seq}`, Role.ROLE_AGENT, parts)
}

/**
 * The history the bridge can show: the client's message (the run's input, as its redacted preview)
 * and the agent's status message when there is one. `historyLength`: unset, all; 0, none; N, the
 * newest N.
 */
const historyOf = (run: RunFacts, historyLength: number | undefined): Array<Message> => {
  if (historyLength === 0) return []
  const status = statusMessage(run)
  const all = [message(run, `${run.run_id}:input`, Role.ROLE_USER, [textPart(run.input_preview)]), ...(status === undefined ? [] : [status])]
  return historyLength === undefined ? all : all.slice(-historyLength)
}

/** The output as an artifact: one text part per window read, in order. */
export const outputArtifact = (windows: ReadonlyArray<string>, total: number, complete: boolean): Artifact => ({
  artifactId: "output",
  name: "output",
  description: complete ? "The run's output." : "The run's output, cut at the bridge's artifact limit: read the rest with agent_run_status.",
  parts: windows.map(textPart),
  metadata: { output_total: total, complete },
  extensions: []
})

export const taskOf = (run: RunFacts, options: { readonly historyLength?: number | undefined; readonly artifact?: Artifact | undefined }): Task => ({
  id: run.run_id,
  contextId: contextOf(run),
  status: { state: stateOf(run), message: statusMessage(run), timestamp: run.updated_at },
  artifacts: options.artifact === undefined ? [] : [options.artifact],
  history: historyOf(run, options.historyLength),
  metadata: { bridge: { run_id: run.run_id, agent: run.agent, status: run.status, created_at: run.created_at } }
})

export type { RunListItem }
