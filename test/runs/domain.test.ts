/**
 * Pure run helpers: key validation and prefixing, the Hermes idempotency key, the request
 * fingerprint, and the reducer that turns Hermes events into ledger events and statuses.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc, Schema } from "effect"
import { approvalOf, FLUSH_CHARS, reduceBatch, splitText } from "../../src/domain/runs/events.ts"
import { fieldsOf, type HermesEvent, HermesEventData, makeEvent } from "../../src/domain/runs/hermesEvents.ts"
import { canonicalJson, fingerprint } from "../../src/domain/runs/fingerprint.ts"
import { hermesIdempotencyKey, validateKey } from "../../src/domain/runs/keys.ts"

/** An event as the SSE edge decodes it. */
const ev = (event: string, data: Record<string, unknown> = {}, id: number | null = null): HermesEvent =>
  makeEvent(id, Schema.decodeUnknownSync(HermesEventData)({ event, run_id: "run_h", timestamp: 1, ...data }))
const approvalData = (e: HermesEvent) => {
  const fields = fieldsOf(e, "approval.request")
  if (fields === null) throw new Error(`not an approval request: ${e.event}`)
  return fields
}
const running = { status: "running" as const, pending: null }

describe("keys", () => {
  it("accepts visible ASCII up to 256 characters with the prefix, and prefixes it", () => {
    expect(validateKey("session_key", "alice", "a-b_c.D~!")).toEqual(Either.right("alice:a-b_c.D~!"))
    expect(validateKey("session_key", "alice", undefined)).toEqual(Either.right(undefined))
    expect(Either.isRight(validateKey("idempotency_key", "alice", "k".repeat(250)))).toBe(true)
    expect(Either.isLeft(validateKey("idempotency_key", "alice", "k".repeat(251)))).toBe(true)
  })

  it("refuses empty, spaced, control or non-ASCII keys with the field's own error, never echoing the key", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 0, maxLength: 40 }), (key) => {
        const valid = key.length > 0 && /^[\x21-\x7e]+$/.test(key)
        const r = validateKey("idempotency_key", "bob", key)
        expect(Either.isRight(r)).toBe(valid)
        if (Either.isLeft(r)) {
          expect(r.left._tag).toBe("InvalidIdempotencyKey")
          if (key.length > 3) expect(r.left.message).not.toContain(key)
        }
      })
    )
    const s = validateKey("session_key", "bob", "with space")
    expect(Either.isLeft(s) && s.left._tag).toBe("InvalidSessionKey")
  })

  it("sends a prefixed key of 256 characters to Hermes as its digest form, stable and ≤ 255", () => {
    const k255 = "a".repeat(255)
    const k256 = "a".repeat(256)
    expect(hermesIdempotencyKey(k255)).toBe(k255)
    expect(hermesIdempotencyKey(k256)).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(hermesIdempotencyKey(k256)).toBe(hermesIdempotencyKey(k256))
    expect(hermesIdempotencyKey(k256)).not.toBe(hermesIdempotencyKey("b".repeat(256)))
  })
})

describe("fingerprint", () => {
  it("ignores key order and absent-vs-null, and changes with every field", () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}')
    const base = { agent: "hermes", input: "x" }
    expect(fingerprint(base)).toBe(fingerprint({ ...base, instructions: undefined }))
    const variants = [{ input: "y" }, { agent: "hermes/coder" }, { instructions: "i" }, { session_key: "s" }, { reasoning_effort: "low" }]
    const prints = new Set(variants.map((v) => fingerprint({ ...base, ...v })))
    expect(prints.size).toBe(variants.length)
    expect(prints.has(fingerprint(base))).toBe(false)
  })
})

describe("event reducer", () => {
  it("coalesces deltas into message.text, flushing before any other event and at the end", () => {
    const r = reduceBatch(running, [
      ev("message.delta", { delta: "Hel" }, 0),
      ev("message.delta", { delta: "lo" }, 1),
      ev("tool.started", { tool: "terminal", preview: "ls" }, 2),
      ev("message.delta", { delta: " world" }, 3),
      ev("reasoning.delta", { delta: "hmm" }, 4)
    ])
    expect(r.events).toEqual([
      { type: "message.text", data: { text: "Hello" } },
      { type: "tool.started", data: { tool: "terminal", preview: "ls" } },
      { type: "message.text", data: { text: " world" } }
    ])
    expect(r.outputAppend).toBe("Hello world")
    expect(r.hermesEventId).toBe(4)
    expect(r.state).toEqual(running)
  })

  it("flushes on size without splitting a surrogate pair", () => {
    const long = "🚀".repeat(FLUSH_CHARS)
    const r = reduceBatch(running, [ev("message.delta", { delta: long })])
    const texts = r.events.map((e) => e.data["text"] as string)
    expect(texts.join("")).toBe(long)
    for (const t of texts) {
      expect(t.length).toBeLessThanOrEqual(FLUSH_CHARS)
      expect(t).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/)
    }
    expect(splitText("abcdef", 4)).toEqual(["abcd", "ef"])
  })

  it("moves statuses: approvals, clarifications, stopping sticks, terminal ends everything", () => {
    const request = ev("approval.request", { request_id: "r1", command: "rm", description: "d", choices: ["once", "deny"] })
    const approval = reduceBatch(running, [request])
    expect(approval.state.status).toBe("waiting_for_approval")
    expect(approvalOf(approvalData(request))).toEqual({ request_id: "r1", command: "rm", description: "d", pattern_key: null, choices: ["once", "deny"] })
    expect(approvalOf(approvalData(ev("approval.request", { request_id: "r2" }))).choices).toEqual([])
    const responded = reduceBatch(approval.state, [ev("approval.responded", { request_id: "r1", choice: "deny", resolved: 1 })])
    expect(responded.state.status).toBe("running")
    expect(responded.approvalsResolved).toEqual([{ request_id: "r1", choice: "deny", inferred: false }])

    const asked = reduceBatch(running, [ev("clarify.request", { clarify_id: "c1", question: "q?", choices: ["a"], multi_select: true })])
    expect(asked.state).toEqual({ status: "waiting_for_clarification", pending: { request_id: "c1", kind: "clarification", question: "q?", choices: ["a"], multi_select: true } })
    expect(asked.events[0]?.type).toBe("clarify.request")
    const echoOfOther = reduceBatch(asked.state, [ev("clarify.responded", { clarify_id: "c0", outcome: "answered" })])
    expect(echoOfOther.events).toEqual([])
    const retired = reduceBatch(asked.state, [ev("clarify.retired", { clarify_id: "c1", notice: "timed out" })])
    expect(retired.state).toEqual(running)
    expect(retired.events[0]).toMatchObject({ type: "clarify.answered", data: { request_id: "c1", via: "retired" } })

    const stopping = { status: "stopping" as const, pending: null }
    expect(reduceBatch(stopping, [ev("message.delta", { delta: "x" }), ev("approval.request", { request_id: "r" })]).state.status).toBe("stopping")
    expect(reduceBatch(stopping, [ev("clarify.request", { clarify_id: "c" })]).state).toEqual(stopping)

    const queued = reduceBatch({ status: "queued", pending: null }, [ev("tool.started", { tool: "t" })])
    expect(queued.state.status).toBe("running")
  })

  it("records terminal events with their data and ignores anything after them", () => {
    const done = reduceBatch(running, [
      ev("message.delta", { delta: "draft" }),
      ev("run.completed", { output: "final", usage: { total_tokens: 9 }, pending_steer: "late" }),
      ev("message.delta", { delta: "after" })
    ])
    expect(done.state.status).toBe("completed")
    expect(done.outputReplace).toBe("final")
    expect(done.outputAppend).toBe("")
    expect(done.events.map((e) => e.type)).toEqual(["message.text", "run.completed"])
    expect(done.events[1]?.data).toEqual({ usage: { total_tokens: 9 }, pending_steer: "late" })

    const failed = reduceBatch(asPending(), [ev("run.failed", { error: "boom" })])
    expect(failed.state).toEqual({ status: "failed", pending: null })
    expect(failed.error).toBe("boom")
    expect(reduceBatch(running, [ev("run.cancelled")]).state.status).toBe("cancelled")
    expect(reduceBatch(running, [ev("run.interrupted", { error: "gone" })]).error).toBe("gone")
    expect(reduceBatch({ status: "completed", pending: null }, [ev("message.delta", { delta: "x" })]).events).toEqual([])
  })

  it("drops a numbered frame's own seq from the stored data; an unnumbered event's fields stay as they came", () => {
    const numbered = reduceBatch(running, [
      ev("tool.started", { seq: 3, tool: "terminal", preview: "ls" }, 3),
      ev("approval.request", { seq: 4, request_id: "r1", command: "rm" }, 4)
    ])
    expect(numbered.events.map((e) => e.data)).toEqual([{ tool: "terminal", preview: "ls" }, { request_id: "r1", command: "rm" }])
    expect(numbered.hermesEventId).toBe(4)
    const plain = reduceBatch(running, [ev("tool.started", { seq: 3, tool: "terminal" })])
    expect(plain.events[0]?.data).toEqual({ seq: 3, tool: "terminal" })
  })
})

const asPending = () => ({
  status: "waiting_for_clarification" as const,
  pending: { request_id: "c", kind: "clarification" as const, question: "?", choices: null, multi_select: false }
})
