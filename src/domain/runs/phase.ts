/**
 * The phase of a run as every face sees it, before any protocol names it: what the run is doing,
 * whose turn it is, and the sentences that say so. Each face maps the phase through a table of its
 * own (the MCP Tasks status in `edge/mcp/tasks/taskOfRun.ts`, the A2A task state in
 * `edge/a2a/taskOfRun.ts`, the run view's fields in `RUN_VIEW_FACE` below); the facts and the
 * words are decided here, once.
 *
 * | phase             | from the run view                                         | carries                    |
 * | queued            | status queued                                             | its place in the queue, when known |
 * | working           | running (or a clarification status with no question left) | events so far              |
 * | stopping          | stopping                                                  |                            |
 * | awaiting operator | waiting_for_approval                                      | the command, since when    |
 * | needs answer      | any live status with a clarification pending              | the question               |
 * | ended             | completed, failed, interrupted, cancelled                 | the outcome, its error     |
 *
 * A pending clarification decides first: while one is pending the client owes an answer, whatever
 * else the run waits on (`agent_run_wait` ends on it, and so must every face's "your turn").
 */
import type { PendingClarification, RunStatus, RunView } from "./view.ts"
import { isTerminal } from "./view.ts"

export type EndOutcome = "ok" | "failed" | "interrupted" | "cancelled"

export type RunPhase =
  /**
   * Accepted, not yet running at Hermes: it waits for capacity at `agent`. `place`: its place in the
   * bridge's queue (1: next), absent while it is being started.
   */
  | { readonly _tag: "Queued"; readonly agent?: string | undefined; readonly place?: number | undefined }
  /** `events`: the run's events so far. `answered`: its status still names a question no longer pending. */
  | { readonly _tag: "Working"; readonly events: number; readonly answered: boolean }
  | { readonly _tag: "Stopping" }
  /** Held by the operator's approval (in the inbox); `waiting` when the command is known. */
  | { readonly _tag: "AwaitingOperator"; readonly waiting?: { readonly command: string; readonly since: string } | undefined }
  | { readonly _tag: "NeedsAnswer"; readonly question: PendingClarification }
  | { readonly _tag: "Ended"; readonly outcome: EndOutcome; readonly why: string | null }

/** One name per phase and outcome: the key of every face's table. */
export type PhaseKey =
  | "queued" | "working" | "stopping" | "awaiting_operator" | "needs_answer"
  | "ended_ok" | "ended_failed" | "ended_interrupted" | "ended_cancelled"

export const PHASE_KEYS: ReadonlyArray<PhaseKey> = [
  "queued", "working", "stopping", "awaiting_operator", "needs_answer", "ended_ok", "ended_failed", "ended_interrupted", "ended_cancelled"
]

/** The facts of a run view a phase is read from (a list item has them too). */
export type PhaseFacts = Pick<RunView, "status" | "pending" | "error" | "last_seq" | "awaiting_approval"> & Partial<Pick<RunView, "agent" | "queue_position">>

const OUTCOME_OF: Readonly<Record<"completed" | "failed" | "interrupted" | "cancelled", EndOutcome>> = {
  completed: "ok",
  failed: "failed",
  interrupted: "interrupted",
  cancelled: "cancelled"
}

export const phaseOf = (run: PhaseFacts): RunPhase => {
  if (isTerminal(run.status)) {
    return { _tag: "Ended", outcome: OUTCOME_OF[run.status as keyof typeof OUTCOME_OF], why: run.error }
  }
  if (run.pending?.kind === "clarification") return { _tag: "NeedsAnswer", question: run.pending }
  switch (run.status) {
    case "queued":
      return { _tag: "Queued", agent: run.agent, place: run.queue_position }
    case "stopping":
      return { _tag: "Stopping" }
    case "waiting_for_approval": {
      const waiting = run.awaiting_approval ?? (run.pending?.kind === "approval" ? run.pending : undefined)
      return { _tag: "AwaitingOperator", waiting: waiting === undefined ? undefined : { command: waiting.command, since: waiting.since } }
    }
    default:
      return { _tag: "Working", events: run.last_seq, answered: run.status === "waiting_for_clarification" }
  }
}

export const phaseKey = (phase: RunPhase): PhaseKey => {
  switch (phase._tag) {
    case "Queued":
      return "queued"
    case "Working":
      return "working"
    case "Stopping":
      return "stopping"
    case "AwaitingOperator":
      return "awaiting_operator"
    case "NeedsAnswer":
      return "needs_answer"
    case "Ended":
      return `ended_${phase.outcome}`
  }
}

/** The run will not change again. */
export const isEnded = (phase: RunPhase): phase is Extract<RunPhase, { _tag: "Ended" }> => phase._tag === "Ended"
/** The client owes the run an answer. */
export const needsClient = (phase: RunPhase): phase is Extract<RunPhase, { _tag: "NeedsAnswer" }> => phase._tag === "NeedsAnswer"
/** Ended, or on its way there: nothing more is asked of anyone. */
export const isSettling = (phase: RunPhase): boolean => phase._tag === "Ended" || phase._tag === "Stopping"

// ── The sentences: each said once, for every face.

const approvalSentence = (waiting: Extract<RunPhase, { _tag: "AwaitingOperator" }>["waiting"]) =>
  waiting === undefined
    ? "Waiting for the operator's approval (in the bridge's inbox)."
    : `Waiting for the operator's approval of \`${waiting.command}\` (since ${waiting.since}), in the bridge's inbox.`

const endedSentence = (outcome: EndOutcome, why: string | null) => {
  const reason = why === null ? "" : `: ${why}`
  switch (outcome) {
    case "ok":
      return "The run completed."
    case "failed":
      return `The run failed${reason}`
    case "interrupted":
      return `The run was interrupted${reason}`
    case "cancelled":
      return `The run was cancelled${reason}`
  }
}

/** What the phase says in words (a task's status message). */
export const phaseSentence = (phase: RunPhase): string => {
  switch (phase._tag) {
    case "Queued":
      return `The run is queued: it waits for capacity at ${phase.agent ?? "its agent"}` +
        (phase.place === undefined ? " and is being started." : ` (place ${phase.place} in the queue).`)
    case "Working":
      return phase.answered ? "The run is working." : `The run is working (${phase.events} events so far).`
    case "Stopping":
      return "The run is stopping."
    case "AwaitingOperator":
      return approvalSentence(phase.waiting)
    case "NeedsAnswer":
      return `The run asks: ${phase.question.question}`
    case "Ended":
      return endedSentence(phase.outcome, phase.why)
  }
}

/** The question with what may be chosen, for a face whose message carries no form of choices. */
export const questionWithChoices = (q: PendingClarification): string =>
  `${q.question}${q.choices === null ? "" : ` (${q.multi_select ? "one or more of" : "one of"}: ${q.choices.join(", ")})`}`

/**
 * An answer given as text (a face with no list input): a multi-select question takes the choices
 * separated by commas.
 */
export const answerFromText = (q: PendingClarification, text: string): string | ReadonlyArray<string> =>
  q.multi_select ? text.split(",").map((s) => s.trim()).filter((s) => s.length > 0) : text.trim()

// ── The run view's face: the run tools publish the status raw; this is what it says per phase.

export interface RunViewFace {
  /** The status a run in this phase shows (besides the corner cases `phaseOf` names). */
  readonly status: RunStatus
  /** `agent_run_wait` ends here (a terminal status, or a clarification pending). */
  readonly waitEnds: boolean
}

export const RUN_VIEW_FACE: Readonly<Record<PhaseKey, RunViewFace>> = {
  queued: { status: "queued", waitEnds: false },
  working: { status: "running", waitEnds: false },
  stopping: { status: "stopping", waitEnds: false },
  awaiting_operator: { status: "waiting_for_approval", waitEnds: false },
  needs_answer: { status: "waiting_for_clarification", waitEnds: true },
  ended_ok: { status: "completed", waitEnds: true },
  ended_failed: { status: "failed", waitEnds: true },
  ended_interrupted: { status: "interrupted", waitEnds: true },
  ended_cancelled: { status: "cancelled", waitEnds: true }
}

/** The run statuses a run in `key` may show: `RUN_VIEW_FACE`'s, and any live one for a pending question. */
export const statusesOfPhase = (key: PhaseKey): ReadonlyArray<RunStatus> => {
  if (key === "needs_answer") return ["queued", "running", "waiting_for_approval", "waiting_for_clarification", "stopping"]
  if (key === "working") return ["running", "waiting_for_clarification"]
  return [RUN_VIEW_FACE[key].status]
}
