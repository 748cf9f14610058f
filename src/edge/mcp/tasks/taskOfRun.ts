/**
 * A run as a task: the status mapping of docs/REFERENCE.md ("Runs as MCP tasks"). Pure: the caller
 * reads the run view (and, for a finished run, the final result) through the runs service.
 *
 * | run status                                   | task status                                     |
 * | queued, running, stopping                    | working                                         |
 * | waiting_for_approval                         | working, statusMessage names the command        |
 * | waiting_for_clarification (question pending) | input_required, the question as an elicitation  |
 * | completed, failed, interrupted               | completed, result = agent_run's answer at the end |
 * | cancelled                                    | cancelled                                       |
 *
 * A failed or interrupted run is `completed`, not the spec's `failed`: the spec keeps `failed` for
 * a JSON-RPC error, and the run tools answer such a run with its view (status and error in it), not
 * with an error. The result is exactly what `agent_run` answers for the finished run (its run
 * view, as `agent_run_wait` ends with it, without the events tail), so it reads against the tool's
 * output schema; the statusMessage says the run failed and why.
 */
import type { RunView } from "../../../domain/runs/view.ts"
import type { CallToolResult } from "../wireTypes.ts"
import type { DetailedTask, TaskStatus } from "./protocol.ts"

/** How often a client is asked to poll: a run's events arrive in seconds, not milliseconds. */
export const POLL_INTERVAL_MS = 1000

/** The key of a clarification's answer in the elicitation form. */
export const ANSWER_FIELD = "answer"

type Clarification = Extract<NonNullable<RunView["pending"]>, { kind: "clarification" }>

/** The clarification this view waits on, if any: it is the task's one input request. */
export const pendingClarification = (view: RunView): Clarification | undefined =>
  view.pending !== null && view.pending.kind === "clarification" ? view.pending : undefined

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
  pollIntervalMs: POLL_INTERVAL_MS
})

const approvalMessage = (view: RunView) => {
  const waiting = view.awaiting_approval ?? (view.pending?.kind === "approval" ? view.pending : undefined)
  return waiting === undefined
    ? "Waiting for the operator's approval (in the bridge's inbox)."
    : `Waiting for the operator's approval of \`${waiting.command}\` (since ${waiting.since}), in the bridge's inbox.`
}

/** A queued run waits for a free slot at its Hermes (the bridge's queue, issue 38). */
const queuedMessage = (view: RunView) =>
  `The run is queued: it waits for capacity at ${view.agent}` +
  (view.queue_position === undefined ? " and is being started." : ` (place ${view.queue_position} in the queue).`)

/** The task for a run that is not finished (no result needed). */
const unfinished = (view: RunView, retentionMs: number): DetailedTask => {
  switch (view.status) {
    case "queued":
      return base(view, "working", queuedMessage(view), false, retentionMs)
    case "waiting_for_approval":
      return base(view, "working", approvalMessage(view), false, retentionMs)
    case "waiting_for_clarification": {
      const q = pendingClarification(view)
      if (q === undefined) return base(view, "working", "The run is working.", false, retentionMs)
      return { ...base(view, "input_required", `The run asks: ${q.question}`, false, retentionMs), inputRequests: { [q.request_id]: inputRequestOf(q) } }
    }
    case "stopping":
      return base(view, "working", "The run is stopping.", false, retentionMs)
    default:
      return base(view, "working", `The run is working (${view.last_seq} events so far).`, false, retentionMs)
  }
}

export const isFinishedRun = (view: RunView): boolean =>
  view.status === "completed" || view.status === "failed" || view.status === "interrupted" || view.status === "cancelled"

/** A finished run's message: its status, and its error when it has one. */
const finishedMessage = (view: RunView) => {
  const why = view.error === null ? "" : `: ${view.error}`
  switch (view.status) {
    case "failed":
      return `The run failed${why}`
    case "interrupted":
      return `The run was interrupted${why}`
    case "cancelled":
      return `The run was cancelled${why}`
    default:
      return "The run completed."
  }
}

/**
 * The task for `view`. A finished run (other than cancelled) needs `result`: the CallToolResult
 * `agent_run` answers for it.
 */
export const taskOfRun = (view: RunView, retentionMs: number, result?: CallToolResult): DetailedTask => {
  if (!isFinishedRun(view)) return unfinished(view, retentionMs)
  const task = base(view, view.status === "cancelled" ? "cancelled" : "completed", finishedMessage(view), true, retentionMs)
  if (view.status === "cancelled" || result === undefined) return task
  return { ...task, result: result as unknown as Record<string, unknown> }
}

/** The `CreateTaskResult` for a run just started (or found again by its idempotency key). */
export const createTaskResult = (view: RunView, retentionMs: number) => {
  const { inputRequests: _inputs, result: _result, ...task } = taskOfRun(view, retentionMs)
  return { resultType: "task" as const, ...task }
}
