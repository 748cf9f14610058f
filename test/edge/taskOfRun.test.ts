/** The run → task status mapping (docs/REFERENCE.md "Runs as MCP tasks"), status by status. */
import { describe, expect, it } from "vitest"
import type { RunStatus, RunView } from "../../src/domain/runs/view.ts"
import { TASK_POLL_INTERVAL_MS } from "../../src/domain/limits.ts"
import { createTaskResult, taskOfRun } from "../../src/edge/mcp/tasks/taskOfRun.ts"

const RETENTION = 7 * 86_400_000
const view = (status: RunStatus, extra: Partial<RunView> = {}): RunView => ({
  run_id: "run_" + "a".repeat(32), agent: "hermes", profile: "default", client: "carol", status,
  created_at: "2026-12-01T10:00:00.000Z", updated_at: "2026-12-01T10:00:05.000Z", input_preview: "x",
  error: null, usage: null, pending: null, last_seq: 3, output: null, output_offset: 0, output_total: 0, next_offset: null,
  ...extra
})
const final = { content: [{ type: "text" as const, text: "{}" }], structuredContent: { status: "completed" } }

describe("a run as a task", () => {
  it("queued, running and stopping runs are working, with a ttl of the whole retention", () => {
    for (const [status, message] of [["queued", /queued/], ["running", /working \(3 events/], ["stopping", /stopping/]] as const) {
      const task = taskOfRun(view(status), RETENTION)
      expect(task).toEqual({
        taskId: "run_" + "a".repeat(32), status: "working", statusMessage: expect.stringMatching(message),
        createdAt: "2026-12-01T10:00:00.000Z", lastUpdatedAt: "2026-12-01T10:00:05.000Z", ttlMs: RETENTION, pollIntervalMs: TASK_POLL_INTERVAL_MS
      })
    }
  })

  it("a queued run is working, and says it waits for capacity, with its place (issue 38)", () => {
    expect(taskOfRun(view("queued", { queue_position: 3 }), RETENTION).statusMessage).toBe("The run is queued: it waits for capacity at hermes (place 3 in the queue).")
    expect(taskOfRun(view("queued"), RETENTION).statusMessage).toBe("The run is queued: it waits for capacity at hermes and is being started.")
  })

  it("a run waiting for the operator's approval is working, and says what it waits on", () => {
    const awaiting = { approval_id: "ap_1", command: "rm -rf ./build", description: "delete", since: "2026-12-01T10:00:04.000Z" }
    const task = taskOfRun(view("waiting_for_approval", { awaiting_approval: awaiting }), RETENTION)
    expect(task.status).toBe("working")
    expect(task.statusMessage).toBe("Waiting for the operator's approval of `rm -rf ./build` (since 2026-12-01T10:00:04.000Z), in the bridge's inbox.")
    expect(task.inputRequests).toBeUndefined()
  })

  it("a pending clarification is input_required, the question an elicitation form keyed by its request id", () => {
    const pending = (choices: ReadonlyArray<string> | null, multi: boolean) =>
      view("waiting_for_clarification", { pending: { request_id: "clar_1", kind: "clarification", question: "Which?", choices, multi_select: multi } })
    const answerSchema = (v: RunView) => (taskOfRun(v, RETENTION).inputRequests as any)["clar_1"].params.requestedSchema.properties.answer
    const task = taskOfRun(pending(["a", "b"], false), RETENTION)
    expect(task.status).toBe("input_required")
    expect(task.statusMessage).toBe("The run asks: Which?")
    expect(task.inputRequests).toEqual({
      clar_1: {
        method: "elicitation/create",
        params: { mode: "form", message: "Which?", requestedSchema: { type: "object", properties: { answer: { type: "string", title: "Answer", enum: ["a", "b"] } }, required: ["answer"] } }
      }
    })
    expect(answerSchema(pending(["a", "b"], true))).toEqual({ type: "array", title: "Answer", items: { type: "string", enum: ["a", "b"] } })
    expect(answerSchema(pending(null, false))).toEqual({ type: "string", title: "Answer" })
    // Waiting on a clarification that is not (or no longer) pending: nothing to ask.
    expect(taskOfRun(view("waiting_for_clarification"), RETENTION).status).toBe("working")
  })

  it("completed, failed and interrupted runs are completed with the final result; the ttl counts from creation", () => {
    for (const [status, error, message] of [
      ["completed", null, "The run completed."],
      ["failed", "bridge.agent_refused: boom", "The run failed: bridge.agent_refused: boom"],
      ["interrupted", "Hermes lost the run", "The run was interrupted: Hermes lost the run"]
    ] as const) {
      const task = taskOfRun(view(status, { error }), RETENTION, final)
      expect(task.status).toBe("completed")
      expect(task.statusMessage).toBe(message)
      expect(task.result).toBe(final)
      expect(task.ttlMs).toBe(5_000 + RETENTION)
    }
  })

  it("a cancelled run is cancelled, with no result", () => {
    const task = taskOfRun(view("cancelled"), RETENTION, final)
    expect(task.status).toBe("cancelled")
    expect(task.statusMessage).toBe("The run was cancelled")
    expect(task.result).toBeUndefined()
  })

  it("the CreateTaskResult is the task with resultType task and no payload", () => {
    const created = createTaskResult(view("waiting_for_clarification", { pending: { request_id: "c", kind: "clarification", question: "Q", choices: null, multi_select: false } }), RETENTION)
    expect(created.resultType).toBe("task")
    expect(created.status).toBe("input_required")
    expect("inputRequests" in created).toBe(false)
  })
})

describe("the task methods' protocol errors", () => {
  it("a run unknown to the caller is the spec's Task not found; a refusal is invalid params; the rest internal", async () => {
    const { protocolErrorOf } = await import("../../src/edge/mcp/tasks/taskMethods.ts")
    const { InvalidInput, RunNotFound, Unavailable } = await import("../../src/domain/errors.ts")
    const notFound = protocolErrorOf(new RunNotFound({ message: "no run" }), "cancel")
    expect([notFound.code, notFound.message]).toEqual([-32602, "Failed to cancel task: Task not found"])
    const refused = protocolErrorOf(new InvalidInput({ message: "bad answer" }), "update")
    expect([refused.code, refused.message]).toEqual([-32602, "bridge.invalid_input: bad answer"])
    const down = protocolErrorOf(new Unavailable({ message: "draining" }), "retrieve")
    expect([down.code, down.message]).toEqual([-32603, "bridge.unavailable: draining"])
  })

  it("a listen asks for task notifications only with a taskIds list; ids are deduplicated and capped", async () => {
    const { taskListenRequest } = await import("../../src/edge/mcp/tasks/taskListen.ts")
    const { TASK_LISTEN_IDS_MAX: MAX_TASK_IDS } = await import("../../src/domain/limits.ts")
    const caps = { "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } }
    const body = (notifications: unknown, meta: unknown = caps) => ({ jsonrpc: "2.0", id: 3, method: "subscriptions/listen", params: { notifications, _meta: meta } })
    expect(taskListenRequest(body({ toolsListChanged: true }))).toBeUndefined()
    expect(taskListenRequest({ ...body({ taskIds: ["a"] }), method: "tools/list" })).toBeUndefined()
    expect(taskListenRequest(body({ taskIds: ["a", "a", 7, "b"] }))).toEqual({ id: 3, taskIds: ["a", "b"], declared: true })
    expect(taskListenRequest(body({ taskIds: ["a"] }, {}))?.declared).toBe(false)
    const many = Array.from({ length: 40 }, (_, i) => `run_${i}`)
    expect(taskListenRequest(body({ taskIds: many }))?.taskIds).toHaveLength(MAX_TASK_IDS)
  })
})
