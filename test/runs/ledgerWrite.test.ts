/**
 * What a ledger write means, above every SQL driver (`ledgerWrite.ts`): events numbered after the
 * last seq, the EVENTS_KEPT cap, output chunks on character boundaries at the right byte offsets,
 * a replacement that equals the stored output writing nothing, the preview head, the end time.
 */
import { describe, expect, it } from "vitest"
import { EVENTS_KEPT } from "../../src/domain/limits.ts"
import { utf8Length } from "../../src/domain/runs/window.ts"
import { chunkOutput, isEmptyChange, OUTPUT_CHUNK_BYTES, OUTPUT_HEAD_CHARS, planWrite, replaceNeedsStoredOutput } from "../../src/services/runs/ledgerWrite.ts"
import { runRecord } from "../support/records.ts"

const record = runRecord

describe("ledger write plan", () => {
  it("numbers events after the last seq and caps what is kept", () => {
    const plan = planWrite(record({ lastSeq: EVENTS_KEPT - 1 }), { events: [{ type: "a", data: {} }, { type: "b", data: { x: 1 } }] }, 50, null)
    expect(plan.events).toEqual([{ seq: EVENTS_KEPT, type: "a", at: 50, data: {} }, { seq: EVENTS_KEPT + 1, type: "b", at: 50, data: { x: 1 } }])
    expect(plan.dropEventsThrough).toBe(1)
    expect(plan.next.lastSeq).toBe(EVENTS_KEPT + 1)
    // Under the cap, or with no new event, nothing is dropped.
    expect(planWrite(record({ lastSeq: 3 }), { events: [{ type: "a", data: {} }] }, 50, null).dropEventsThrough).toBeNull()
    expect(planWrite(record({ lastSeq: EVENTS_KEPT + 9 }), { status: "completed" }, 50, null).dropEventsThrough).toBeNull()
  })

  it("chunks output on character boundaries, at the byte where the stored output ends", () => {
    const text = "é".repeat(OUTPUT_CHUNK_BYTES)
    const chunks = chunkOutput(text, 10)
    expect(chunks.map((c) => c.text).join("")).toBe(text)
    expect(chunks[0]!.startByte).toBe(10)
    for (const c of chunks) expect(c.endByte - c.startByte).toBeLessThanOrEqual(OUTPUT_CHUNK_BYTES)
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]!.startByte).toBe(chunks[i - 1]!.endByte)
    const plan = planWrite(record({ outputBytes: 3, outputHead: "abc" }), { outputAppend: "dé" }, 5, null)
    expect(plan.chunks).toEqual([{ startByte: 3, endByte: 6, text: "dé" }])
    expect(plan.next.outputBytes).toBe(6)
    expect(plan.next.outputHead).toBe("abcdé")
  })

  it("replaces the output only when the final text differs from what is stored", () => {
    const current = record({ outputBytes: 5, outputHead: "hello" })
    expect(replaceNeedsStoredOutput(current, { outputReplace: "world" })).toBe(true)
    expect(planWrite(current, { outputReplace: "hello" }, 5, "hello").clearOutput).toBe(false)
    const differs = planWrite(current, { outputReplace: "world" }, 5, "hello")
    expect(differs.clearOutput).toBe(true)
    expect(differs.chunks).toEqual([{ startByte: 0, endByte: 5, text: "world" }])
    // Another length differs without reading what is stored.
    expect(replaceNeedsStoredOutput(current, { outputReplace: "hi" })).toBe(false)
    const long = "x".repeat(OUTPUT_HEAD_CHARS + 10)
    const replaced = planWrite(current, { outputReplace: long }, 5, null)
    expect(replaced.next.outputBytes).toBe(utf8Length(long))
    expect(replaced.next.outputHead.length).toBe(OUTPUT_HEAD_CHARS)
  })

  it("ends the run once, at the first terminal status, and keeps fields a change omits", () => {
    const ended = planWrite(record({ error: "e" }), { status: "failed" }, 70, null).next
    expect(ended).toMatchObject({ status: "failed", endedAt: 70, updatedAt: 70, error: "e" })
    expect(planWrite({ ...ended }, { status: "cancelled" }, 90, null).next.endedAt).toBe(70)
    expect(isEmptyChange({})).toBe(true)
    expect(isEmptyChange({ outputReplace: null, hermesEventId: null })).toBe(true)
    expect(isEmptyChange({ outputAppend: "x" })).toBe(false)
  })

  it("stores a stop being asked before the run's cancellation, once, and forgets it when the run ends", () => {
    const operator = { by: "operator", via: "cli" }
    const asked = record({ lastSeq: 4, stopAsked: operator })
    // The follower's batch ends the run: the stop's record comes first, with its actor.
    const ended = planWrite(asked, { status: "cancelled", events: [{ type: "message.delta", data: {} }, { type: "run.cancelled", data: {} }] }, 9, null)
    expect(ended.events.map((e) => [e.seq, e.type, e.data])).toEqual([[5, "message.delta", {}], [6, "run.stopping", operator], [7, "run.cancelled", {}]])
    expect(ended.next).toMatchObject({ status: "cancelled", lastSeq: 7, stopAsked: null })
    // Recorded already (the stop's own commit, a stopping run, a batch that has it): not twice.
    expect(planWrite(asked, { events: [{ type: "run.stopping", data: operator }, { type: "run.cancelled", data: {} }] }, 9, null).events.map((e) => e.type)).toEqual(["run.stopping", "run.cancelled"])
    expect(planWrite(record({ stopAsked: operator, status: "stopping" }), { status: "cancelled", events: [{ type: "run.cancelled", data: {} }] }, 9, null).events.map((e) => e.type)).toEqual(["run.cancelled"])
    // Another end, or no stop asked: the events as they came.
    expect(planWrite(asked, { status: "completed", events: [{ type: "run.completed", data: {} }] }, 9, null).events.map((e) => e.type)).toEqual(["run.completed"])
    expect(planWrite(record(), { status: "cancelled", events: [{ type: "run.cancelled", data: {} }] }, 9, null).events.map((e) => e.type)).toEqual(["run.cancelled"])
    // Asked and withdrawn; kept by writes that do not say; gone with the run's end however it ends.
    expect(planWrite(record(), { stopAsked: operator }, 9, null).next.stopAsked).toEqual(operator)
    expect(planWrite(asked, { events: [{ type: "message.delta", data: {} }] }, 9, null).next.stopAsked).toEqual(operator)
    expect(planWrite(asked, { stopAsked: null }, 9, null).next.stopAsked).toBeNull()
    expect(planWrite(asked, { status: "completed" }, 9, null).next.stopAsked).toBeNull()
    expect(isEmptyChange({ stopAsked: null })).toBe(false)
  })

  it("stores Hermes's echo of an answer being given as the client's answer, of that request only", () => {
    const client = { request_id: "c1", answer: "staging", via: "client" }
    const asked = record({ lastSeq: 2, answerAsked: client, pending: { request_id: "c1", kind: "clarification", question: "?", choices: null, multi_select: false } })
    const echo = (id: string, via = "hermes") => ({ type: "clarify.answered", data: { request_id: id, via } })
    expect(planWrite(asked, { pending: null, events: [echo("c1")] }, 9, null).events.map((e) => e.data)).toEqual([client])
    // Another request's echo, a question Hermes retired, no answer asked: as they came.
    expect(planWrite(asked, { events: [echo("c2")] }, 9, null).events.map((e) => e.data)).toEqual([{ request_id: "c2", via: "hermes" }])
    expect(planWrite(asked, { events: [echo("c1", "retired")] }, 9, null).events.map((e) => e.data)).toEqual([{ request_id: "c1", via: "retired" }])
    expect(planWrite(record(), { events: [echo("c1")] }, 9, null).events.map((e) => e.data)).toEqual([{ request_id: "c1", via: "hermes" }])
    // Two answers on their way (the request's id alone): nothing stands for the echo.
    expect(planWrite(record({ answerAsked: { request_id: "c1" } }), { events: [echo("c1")] }, 9, null).events.map((e) => e.data)).toEqual([{ request_id: "c1", via: "hermes" }])
    // Kept until the answer's own record withdraws it, gone with the run's end.
    expect(planWrite(asked, { events: [echo("c1")] }, 9, null).next.answerAsked).toEqual(client)
    expect(planWrite(asked, { answerAsked: null }, 9, null).next.answerAsked).toBeNull()
    expect(planWrite(asked, { status: "failed" }, 9, null).next.answerAsked).toBeNull()
    expect(isEmptyChange({ answerAsked: null })).toBe(false)
  })
})
