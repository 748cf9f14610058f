/**
 * The run's phase (src/domain/runs/phase.ts) and each face's table over it: the MCP Tasks status,
 * the A2A task state, the run view's fields. Every phase through every table, and a property that
 * the three faces agree, on any run view, on whether the run has ended and whether it is the
 * client's turn.
 */
import { TaskState } from "@a2a-js/sdk"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  answerFromText, isEnded, needsClient, PHASE_KEYS, type PhaseKey, phaseKey, phaseOf, phaseSentence, RUN_VIEW_FACE, type RunPhase, statusesOfPhase
} from "../../src/domain/runs/phase.ts"
import { isTerminal, type PendingClarification, RunStatus, type RunView } from "../../src/domain/runs/view.ts"
import { STATE_OF, stateOf, taskOf } from "../../src/edge/a2a/taskOfRun.ts"
import { TASK_STATUS_OF, taskOfRun } from "../../src/edge/mcp/tasks/taskOfRun.ts"

const RETENTION = 1000
const question: PendingClarification = { request_id: "clar_1", kind: "clarification", question: "Which?", choices: ["a", "b"], multi_select: true }
const approval = { request_id: "ap_1", kind: "approval" as const, command: "rm -rf ./build", description: "delete", since: "2026-12-01T10:00:04.000Z" }
const view = (status: RunStatus, extra: Partial<RunView> = {}): RunView => ({
  run_id: "run_" + "a".repeat(32), agent: "hermes", profile: "default", client: "carol", status,
  created_at: "2026-12-01T10:00:00.000Z", updated_at: "2026-12-01T10:00:05.000Z", input_preview: "x",
  error: null, usage: null, pending: null, last_seq: 3, output: null, output_offset: 0, output_total: 0, next_offset: null,
  ...extra
})

/** One run view per phase key, and the sentence its phase says. */
const EXAMPLES: Readonly<Record<PhaseKey, readonly [RunView, string]>> = {
  queued: [view("queued"), "The run is queued: it waits for capacity at hermes and is being started."],
  working: [view("running"), "The run is working (3 events so far)."],
  stopping: [view("stopping"), "The run is stopping."],
  awaiting_operator: [view("waiting_for_approval", { pending: approval }), "Waiting for the operator's approval of `rm -rf ./build` (since 2026-12-01T10:00:04.000Z), in the bridge's inbox."],
  needs_answer: [view("waiting_for_clarification", { pending: question }), "The run asks: Which?"],
  ended_ok: [view("completed"), "The run completed."],
  ended_failed: [view("failed", { error: "boom" }), "The run failed: boom"],
  ended_interrupted: [view("interrupted", { error: "lost" }), "The run was interrupted: lost"],
  ended_cancelled: [view("cancelled"), "The run was cancelled"]
}

const TASK_STATUS: Readonly<Record<PhaseKey, string>> = {
  queued: "working", working: "working", stopping: "working", awaiting_operator: "working", needs_answer: "input_required",
  ended_ok: "completed", ended_failed: "completed", ended_interrupted: "completed", ended_cancelled: "cancelled"
}
const A2A_STATE: Readonly<Record<PhaseKey, TaskState>> = {
  queued: TaskState.TASK_STATE_SUBMITTED, working: TaskState.TASK_STATE_WORKING, stopping: TaskState.TASK_STATE_WORKING,
  awaiting_operator: TaskState.TASK_STATE_WORKING, needs_answer: TaskState.TASK_STATE_INPUT_REQUIRED, ended_ok: TaskState.TASK_STATE_COMPLETED,
  ended_failed: TaskState.TASK_STATE_FAILED, ended_interrupted: TaskState.TASK_STATE_FAILED, ended_cancelled: TaskState.TASK_STATE_CANCELED
}
/** The A2A status message's text per phase (none where the state says it all). */
const A2A_TEXT: Readonly<Record<PhaseKey, string | undefined>> = {
  queued: undefined, working: undefined, stopping: "The run is stopping.",
  awaiting_operator: EXAMPLES.awaiting_operator[1], needs_answer: "Which? (one or more of: a, b)", ended_ok: undefined,
  ended_failed: "The run failed: boom", ended_interrupted: "The run was interrupted: lost", ended_cancelled: undefined
}

const a2aText = (v: RunView) => {
  const part = taskOf(v, {}).status?.message?.parts[0]?.content
  return part?.$case === "text" ? part.value : undefined
}

describe("the run phase", () => {
  it("reads every phase from a run view, and words each one", () => {
    for (const key of PHASE_KEYS) {
      const [v, sentence] = EXAMPLES[key]
      const phase = phaseOf(v)
      expect(phaseKey(phase), key).toBe(key)
      expect(phaseSentence(phase), key).toBe(sentence)
    }
  })

  it("a queued run with a place in the queue says it waits for capacity", () => {
    expect(phaseSentence({ _tag: "Queued", agent: "hermes", place: 2 })).toBe("The run is queued: it waits for capacity at hermes (place 2 in the queue).")
    expect(phaseSentence({ _tag: "Queued", agent: "hermes" })).toBe("The run is queued: it waits for capacity at hermes and is being started.")
  })

  it("a clarification status with no question left is working, in fewer words; a pending question decides over any live status", () => {
    expect(phaseOf(view("waiting_for_clarification"))).toEqual({ _tag: "Working", events: 3, answered: true })
    expect(phaseSentence(phaseOf(view("waiting_for_clarification")))).toBe("The run is working.")
    for (const status of ["running", "waiting_for_approval", "stopping"] as const) {
      expect(phaseKey(phaseOf(view(status, { pending: question }))), status).toBe("needs_answer")
    }
    expect(phaseKey(phaseOf(view("completed", { pending: question })))).toBe("ended_ok")
  })

  it("an approval known only from awaiting_approval still names its command", () => {
    const awaiting = { approval_id: "ap_1", command: "ls", description: "", since: "t" }
    expect(phaseOf(view("waiting_for_approval", { awaiting_approval: awaiting }))).toEqual({ _tag: "AwaitingOperator", waiting: { command: "ls", since: "t" } })
    expect(phaseSentence(phaseOf(view("waiting_for_approval")))).toBe("Waiting for the operator's approval (in the bridge's inbox).")
  })

  it("a text answer to a multi-select question is split at commas", () => {
    expect(answerFromText(question, " a, b ,, ")).toEqual(["a", "b"])
    expect(answerFromText({ ...question, multi_select: false }, " a, b ")).toBe("a, b")
  })
})

describe("each face's table over the phase", () => {
  it("MCP Tasks: the task status and message of every phase", () => {
    for (const key of PHASE_KEYS) {
      const [v, sentence] = EXAMPLES[key]
      expect(TASK_STATUS_OF[key], key).toBe(TASK_STATUS[key])
      const task = taskOfRun(v, RETENTION)
      expect(task.status, key).toBe(TASK_STATUS[key])
      expect(task.statusMessage, key).toBe(sentence)
      expect(task.inputRequests === undefined, key).toBe(key !== "needs_answer")
    }
  })

  it("A2A: the task state and status message of every phase (interrupted is FAILED)", () => {
    for (const key of PHASE_KEYS) {
      const [v] = EXAMPLES[key]
      expect(STATE_OF[key], key).toBe(A2A_STATE[key])
      expect(stateOf(v), key).toBe(A2A_STATE[key])
      expect(a2aText(v), key).toBe(A2A_TEXT[key])
    }
    // A cancelled run says why only when it is known.
    expect(a2aText(view("cancelled", { error: "stopped by its client" }))).toBe("The run was cancelled: stopped by its client")
  })

  it("the run view: the status each phase shows, and where agent_run_wait ends", () => {
    for (const key of PHASE_KEYS) {
      const [v] = EXAMPLES[key]
      expect(RUN_VIEW_FACE[key].status, key).toBe(v.status)
      expect(statusesOfPhase(key), key).toContain(v.status)
      expect(RUN_VIEW_FACE[key].waitEnds, key).toBe(isTerminal(v.status) || v.pending?.kind === "clarification")
    }
  })
})

const arbText = fc.string({ maxLength: 8 })
const arbView: fc.Arbitrary<RunView> = fc.record({
  status: fc.constantFrom(...RunStatus.literals),
  error: fc.option(arbText, { nil: null }),
  last_seq: fc.nat(1000),
  pending: fc.oneof(
    fc.constant(null),
    fc.record({ request_id: arbText, kind: fc.constant("clarification" as const), question: arbText, choices: fc.option(fc.array(arbText, { maxLength: 3 }), { nil: null }), multi_select: fc.boolean() }),
    fc.constant(approval)
  ),
  awaiting: fc.boolean()
}).map(({ awaiting, ...facts }) =>
  view(facts.status, { ...facts, ...(awaiting ? { awaiting_approval: { approval_id: "ap_1", command: "ls", description: "", since: "t" } } : {}) }))

const MCP_ENDED = new Set(["completed", "cancelled", "failed"])
const A2A_ENDED = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED])

describe("the faces agree", () => {
  it("on any run view: whether the run has ended, and whether it is the client's turn", () => {
    fc.assert(fc.property(arbView, (v) => {
      const phase: RunPhase = phaseOf(v)
      const mcp = taskOfRun(v, RETENTION)
      const a2a = stateOf(v)
      // The run view's own facts: a terminal status; agent_run_wait ends on a pending question.
      const viewEnded = isTerminal(v.status)
      const viewTurn = !viewEnded && v.pending?.kind === "clarification"
      expect(MCP_ENDED.has(mcp.status)).toBe(viewEnded)
      expect(A2A_ENDED.has(a2a)).toBe(viewEnded)
      expect(isEnded(phase)).toBe(viewEnded)
      expect(mcp.status === "input_required").toBe(viewTurn)
      expect(a2a === TaskState.TASK_STATE_INPUT_REQUIRED).toBe(viewTurn)
      expect(needsClient(phase)).toBe(viewTurn)
      expect(RUN_VIEW_FACE[phaseKey(phase)].waitEnds).toBe(viewEnded || viewTurn)
    }), { numRuns: 500 })
  })
})
