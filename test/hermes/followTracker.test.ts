/** The follower's bookkeeping: replay de-duplication and the events it synthesises from a status. */
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { HermesEventData, makeEvent } from "../../src/domain/runs/hermesEvents.ts"
import type { HermesEvent, HermesRunStatus } from "../../src/hermes/client/HermesClient.ts"
import { FollowTracker, GONE_ERROR, StreamedText } from "../../src/hermes/client/follow.ts"

const ev = (id: number | null, event: string, data: Record<string, unknown> = {}): HermesEvent =>
  makeEvent(id, Schema.decodeUnknownSync(HermesEventData)({ event, ...data }))
const status = (over: Partial<HermesRunStatus>): HermesRunStatus => ({
  runId: "run_1", status: "running", output: null, usage: null, error: null, approval: null, clarification: null, ...over
})

describe("FollowTracker", () => {
  it("drops frames at or below the last id (a replay) and records the newest id", () => {
    const t = new FollowTracker("run_1", 3)
    expect(t.accept(ev(2, "message.delta", { delta: "old" }))).toBe(false)
    expect(t.accept(ev(3, "message.delta", { delta: "old" }))).toBe(false)
    expect(t.accept(ev(4, "message.delta", { delta: "a" }))).toBe(true)
    expect(t.lastId).toBe(4)
    expect(t.accept(ev(null, "message.delta", { delta: "b" }))).toBe(true)
    expect(t.streamed.length).toBe(2)
    expect(t.streamed.isPrefixOf("abc")).toBe(true)
    expect(t.streamed.isPrefixOf("ba")).toBe(false)
  })

  it("after a re-attach, continues the text received before it (and only a true continuation)", () => {
    const t = new FollowTracker("run_1", 7, () => 1_000_000, "Hello, ")
    t.accept(ev(8, "message.delta", { delta: "wor" }))
    const out = t.fromStatus(status({ status: "completed", output: "Hello, world" }))
    expect(out.map((e) => [e.event, e.data.delta])).toEqual([["message.delta", "ld"], ["run.completed", undefined]])
    const other = new FollowTracker("run_1", 7, () => 1_000_000, "Hi, ")
    expect(other.fromStatus(status({ status: "completed", output: "Hello, world" })).map((e) => e.event)).toEqual(["run.completed"])
  })

  it("a surrogate pair split across two deltas still continues the output", () => {
    const t = new FollowTracker("run_1", null)
    const pair = "\u{1F600}"
    t.accept(ev(1, "message.delta", { delta: `a${pair[0]}` }))
    t.accept(ev(2, "message.delta", { delta: pair[1] }))
    expect(t.fromStatus(status({ status: "completed", output: `a${pair}b` })).map((e) => e.data.delta)).toEqual(["b", undefined])
  })

  it("a completed status without an output sends no output (the streamed text stands)", () => {
    const t = new FollowTracker("run_1", null)
    t.accept(ev(1, "message.delta", { delta: "streamed" }))
    const [done] = t.fromStatus(status({ status: "completed", output: null }))
    expect(done?.event).toBe("run.completed")
    expect(done?.data).not.toHaveProperty("output")
  })

  it("is done after any terminal event", () => {
    for (const name of ["run.completed", "run.failed", "run.cancelled", "run.interrupted"]) {
      const t = new FollowTracker("run_1", null)
      t.accept(ev(null, name))
      expect(t.done).toBe(true)
    }
  })

  it("synthesises a completed run with the full output, after the missed tail of the text", () => {
    const t = new FollowTracker("run_1", null, () => 1_000_000)
    t.accept(ev(null, "message.delta", { delta: "Hello, " }))
    const out = t.fromStatus(status({ status: "completed", output: "Hello, world", usage: { total_tokens: 3 }, pendingSteer: "later" }))
    expect(out.map((e) => [e.id, e.event])).toEqual([[null, "message.delta"], [null, "run.completed"]])
    expect(out[0]?.data).toMatchObject({ delta: "world", synthetic: true, run_id: "run_1", timestamp: 1000 })
    expect(out[1]?.data).toMatchObject({ output: "Hello, world", usage: { total_tokens: 3 }, pending_steer: "later" })
    expect(t.done).toBe(true)
  })

  it("sends no tail when the streamed text is not a prefix of the output", () => {
    const t = new FollowTracker("run_1", null)
    t.accept(ev(null, "message.delta", { delta: "something else" }))
    expect(t.fromStatus(status({ status: "completed", output: "Hello" })).map((e) => e.event)).toEqual(["run.completed"])
  })

  it("synthesises failed, cancelled and interrupted with Hermes's error", () => {
    expect(new FollowTracker("r", null).fromStatus(status({ status: "failed", error: "boom" }))[0]?.data).toMatchObject({ event: "run.failed", error: "boom" })
    expect(new FollowTracker("r", null).fromStatus(status({ status: "cancelled" }))[0]?.event).toBe("run.cancelled")
    expect(new FollowTracker("r", null).fromStatus(status({ status: "interrupted", error: "The gateway restarted before this run settled." }))[0]?.data)
      .toMatchObject({ event: "run.interrupted", error: "The gateway restarted before this run settled." })
  })

  it("synthesises a pending approval or clarification once per request id", () => {
    const t = new FollowTracker("r", null)
    const approval = { request_id: "a".repeat(32), command: "rm -rf x", description: "delete", choices: ["once", "deny"] }
    const waiting = status({ status: "waiting_for_approval", approval })
    expect(t.fromStatus(waiting).map((e) => e.event)).toEqual(["approval.request"])
    expect(t.fromStatus(waiting)).toEqual([])
    const clarification = { clarify_id: "c".repeat(32), question: "Which?", choices: ["a", "b"], multi_select: false }
    // Waiting on a question now, so the approval was answered meanwhile.
    const asked = t.fromStatus(status({ status: "waiting_for_clarification", clarification }))
    expect(asked.map((e) => e.data)).toEqual([
      expect.objectContaining({ event: "approval.responded", request_id: "a".repeat(32) }),
      expect.objectContaining({ event: "clarify.request", clarify_id: "c".repeat(32), question: "Which?" })
    ])
    expect(t.done).toBe(false)
  })

  it("does not re-announce a request already seen on the stream", () => {
    const t = new FollowTracker("r", null)
    t.accept(ev(5, "approval.request", { request_id: "x" }))
    expect(t.fromStatus(status({ status: "waiting_for_approval", approval: { request_id: "x", command: "", description: "", choices: [] } }))).toEqual([])
  })

  it("a request that a polled status no longer shows pending is resolved, once", () => {
    // An approval seen on the stream before it dropped, answered by the operator while polling.
    const t = new FollowTracker("r", null)
    const a = { request_id: "a".repeat(32), command: "rm -rf x", description: "delete", choices: ["once", "deny"] }
    t.accept(ev(3, "approval.request", { request_id: a.request_id }))
    expect(t.fromStatus(status({ status: "waiting_for_approval", approval: a }))).toEqual([])
    const resumed = t.fromStatus(status({ status: "running" }))
    expect(resumed.map((e) => [e.event, e.data.request_id, e.data.synthetic])).toEqual([["approval.responded", a.request_id, true]])
    expect(t.fromStatus(status({ status: "running" }))).toEqual([])
    // A clarification announced from a status and resolved in Hermes (answered elsewhere, or retired).
    const c = { clarify_id: "c".repeat(32), question: "Which?", choices: null, multi_select: false }
    expect(t.fromStatus(status({ status: "waiting_for_clarification", clarification: c })).map((e) => e.event)).toEqual(["clarify.request"])
    const answered = t.fromStatus(status({ status: "running" }))
    expect(answered.map((e) => [e.event, e.data.clarify_id])).toEqual([["clarify.responded", c.clarify_id]])
    expect(t.fromStatus(status({ status: "running" }))).toEqual([])
  })

  it("a new request replacing an old one resolves the old; a status without the request's details resolves nothing", () => {
    const t = new FollowTracker("r", null)
    const first = { request_id: "1".repeat(32), command: "a", description: "", choices: [] }
    const second = { ...first, request_id: "2".repeat(32) }
    t.fromStatus(status({ status: "waiting_for_approval", approval: first }))
    // A build that leaves `approval` out of its status: still waiting, nothing resolved.
    expect(t.fromStatus(status({ status: "waiting_for_approval" }))).toEqual([])
    expect(t.fromStatus(status({ status: "waiting_for_approval", approval: second })).map((e) => [e.event, e.data.request_id]))
      .toEqual([["approval.responded", first.request_id], ["approval.request", second.request_id]])
    // A request answered on the stream is not resolved again; the end of the run says the rest.
    t.accept(ev(null, "approval.responded", { request_id: second.request_id }))
    expect(t.fromStatus(status({ status: "running" }))).toEqual([])
    t.fromStatus(status({ status: "waiting_for_approval", approval: { ...first, request_id: "3".repeat(32) } }))
    expect(t.fromStatus(status({ status: "cancelled" })).map((e) => e.event)).toEqual(["run.cancelled"])
  })

  it("a run Hermes no longer knows ends interrupted, saying so", () => {
    const t = new FollowTracker("r", null)
    expect(t.gone().data).toMatchObject({ event: "run.interrupted", error: GONE_ERROR, synthetic: true })
    expect(t.done).toBe(true)
  })
})

describe("StreamedText", () => {
  it("nothing streamed yet is a prefix of every output, the empty one included", () => {
    const t = new StreamedText()
    expect(t.length).toBe(0)
    expect(t.isPrefixOf("")).toBe(true)
    expect(t.isPrefixOf("anything")).toBe(true)
    t.append("")
    expect(t.isPrefixOf("x")).toBe(true)
  })

  it("tells a continuation from a different text of the same length, across pieces and a split surrogate pair", () => {
    const whole = "ab\u{1F600}cd"
    const t = new StreamedText("a")
    t.append("b\uD83D")
    t.append("\uDE00c")
    expect(t.length).toBe(5)
    expect(t.isPrefixOf(whole)).toBe(true)
    expect(t.isPrefixOf("ab\u{1F601}cd")).toBe(false)
    expect(t.isPrefixOf("ab\u{1F600}")).toBe(false)
  })
})
