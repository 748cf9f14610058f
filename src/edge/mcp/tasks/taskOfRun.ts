/**
 * A run as a task: the status mapping of docs/REFERENCE.md ("Runs as MCP tasks"), a table over the
 * run's phase (`domain/runs/phase.ts`, which also words the status message). Pure: the caller
 * reads the run view (and, for a finished run, the final result) through the runs service.
 *
 * | run status                                   | task status                                     |
 * | queued, running, stopping                    | working                                         |
 * | waiting_for_approval                         | working, statusMessage names the command        |
 * | a clarification pending (any live status)     | input_required, the question as an elicitation  |
 * | completed, failed, interrupted               | completed, result = agent_run's answer at the end |
 * | cancelled                                    | cancelled                                       |
 *
 * A failed or interrupted run is `completed`, not the spec's `failed`: the spec keeps `failed` for
 * a JSON-RPC error, and the run tools answer such a run with its view (status and error in it), not
 * with an error. The result is exactly what `agent_run` answers for the finished run (its run
 * view, as `agent_run_wait` ends with it, without the events tail), so it reads against the tool's
 * output schema; the statusMessage says the run failed and why.
 */
import { isEnded, needsClient, type PhaseKey, phaseKey, phaseOf, phaseSentence } from "../../../domain/runs/phase.ts"
import type { PendingClarification, RunView } from "../../../domain/runs/view.ts"
import type { CallToolResult } from "../wireTypes.ts"
import type { DetailedTask, TaskStatus } from "./protocol.ts"
import { TASK_POLL_INTERVAL_MS } from "../../../domain/limits.ts"

/** The key of a clarification's answer in the elicitation form. */
export const ANSWER_FIELD = "answer"

type Clarification = PendingClarification

/** The clarification this view waits on, if any: it is the task's one input request. */
export const pendingClarification = (view: RunView): Clarification | undefined => {
  const phase = phaseOf(view)
  return needsClient(phase) ? phase.question : undefined
}

/** The question as the spec's input request: an `elicitation/create` form with one field. */
const inputRequestOf = (q: Clarification) => {
  const answer =
    q.choices === null
      ? { type: "string", title: "Answer" }
      : q.multi_select
        ? { type: "array", title: "Answer", items: { type: "string", enum: [...q.choices] } }
        : { type: "string", title: "Answer", enum: [...q.choices] }
  return {
    method: "elicitation/create",
    params: {
      mode: "form",
      message: q.question,
      requestedSchema: { type: "object", properties: { [ANSWER_FIELD]: answer }, required: [ANSWER_FIELD] }
    }
  }
}

const epoch = (iso: string) => {
  const ms = Date.parse(iso)
  return Number.isFinite(ms) ? ms : 0
}

/**
 * From creation: a run is never swept while it goes on, and is kept `retentionMs` after it ends
 * (`bridge.run_retention_days`). Unfinished, that is at least `retentionMs`; finished, exactly its
 * duration plus `retentionMs`.
 */
const ttlOf = (view: RunView, finished: boolean, retentionMs: number) =>
  finished ? Math.max(0, epoch(view.updated_at) - epoch(view.created_at)) + retentionMs : retentionMs

const base = (view: RunView, status: TaskStatus, statusMessage: string, finished: boolean, retentionMs: number) => ({
  taskId: view.run_id,
  status,
  statusMessage,
  createdAt: view.created_at,
  lastUpdatedAt: view.updated_at,
  ttlMs: ttlOf(view, finished, retentionMs),
  pollIntervalMs: TASK_POLL_INTERVAL_MS
})

/** The task status of each phase (docs/REFERENCE.md "Runs as MCP tasks"). */
export const TASK_STATUS_OF: Readonly<Record<PhaseKey, TaskStatus>> = {
  queued: "working",
  working: "working",
  stopping: "working",
  awaiting_operator: "working",
  needs_answer: "input_required",
  ended_ok: "completed",
  ended_failed: "completed",
  ended_interrupted: "completed",
  ended_cancelled: "cancelled"
}

/** A finished run's task carries the final result (a cancelled one none). */
export const isFinishedRun = (view: RunView): boolean => isEnded(phaseOf(view))

/**
 * The task for `view`. A finished run (other than cancelled) needs `result`: the CallToolResult
 * `agent_run` answers for it.
 */
export const taskOfRun = (view: RunView, retentionMs: number, result?: CallToolResult): DetailedTask => {
  const phase = phaseOf(view)
  const task = base(view, TASK_STATUS_OF[phaseKey(phase)], phaseSentence(phase), isEnded(phase), retentionMs)
  if (needsClient(phase)) return { ...task, inputRequests: { [phase.question.request_id]: inputRequestOf(phase.question) } }
  if (!isEnded(phase) || phase.outcome === "cancelled" || result === undefined) return task
  return { ...task, result: result as unknown as Record<string, unknown> }
}

/** The `CreateTaskResult` for a run just started (or found again by its idempotency key). */
export const createTaskResult = (view: RunView, retentionMs: number) => {
  const { inputRequests: _inputs, result: _result, ...task } = taskOfRun(view, retentionMs)
  return { resultType: "task" as const, ...task }
}
