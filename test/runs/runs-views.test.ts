/**
 * What leaves the bridge, through the service: 16 KiB output windows over stored chunks with
 * multi-byte text at the edges, the newest-EVENTS_KEPT events cap, since_seq replay, list previews, and
 * redaction with cross-event context and live-edge masking.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { MASK } from "../../src/domain/redact/redact.ts"
import type { RunView } from "../../src/domain/runs/view.ts"
import { utf8 } from "../../src/domain/runs/window.ts"
import { Caller } from "../../src/request/Caller.ts"
import type { RunsShape } from "../../src/services/runs/Runs.ts"
import { TestDb } from "../support/testDb.ts"
import { as, eventually, harness } from "./support/harness.ts"
import { EVENTS_KEPT, EVENTS_PAGE_MAX, TAIL_EVENTS } from "../../src/domain/limits.ts"

const alice = as("alice")

/** Every window of a run's output, following next_offset. */
const readWindows = (runs: RunsShape, runId: string) =>
  Effect.gen(function* () {
    const windows: Array<RunView> = []
    let offset: number | null = 0
    while (offset !== null) {
      const v: RunView = yield* alice(runs.status(runId, offset))
      windows.push(v)
      offset = v.next_offset
    }
    return windows
  })

const mixed = (n: number) => Array.from({ length: n }, (_, i) => ["a", "é", "東", "🚀", " "][i % 5]).join("")

describe("run views", () => {
  it.live("output comes in 16 KiB windows that tile it exactly, with truncated and more while more follows", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "write a lot" }))
      const hid = [...h.hermes.runs.keys()][0]!
      const streamed = mixed(30_000)
      // Streamed in uneven deltas: stored as many chunks, read back across their seams.
      const parts = streamed.match(/[\s\S]{1,997}/gu) ?? []
      yield* h.hermes.deltas(hid, parts)
      yield* eventually(alice(h.runs.status(view.run_id, 0)), (v) => v.output_total === utf8(streamed).length, "all deltas")

      const live = yield* readWindows(h.runs, view.run_id)
      expect(live.map((w) => w.output).join("")).toBe(streamed)
      // Windows end on whole characters, so a window may hold up to 3 bytes less than 16 KiB.
      expect(live.length).toBeGreaterThanOrEqual(Math.ceil(utf8(streamed).length / (16 * 1024)))
      expect(live.length).toBeLessThanOrEqual(Math.ceil(utf8(streamed).length / (16 * 1024 - 3)))
      for (const [i, w] of live.entries()) {
        expect(utf8(w.output ?? "").length).toBeLessThanOrEqual(16 * 1024)
        expect(w.output).not.toContain("\uFFFD")
        const last = i === live.length - 1
        expect(w.next_offset === null).toBe(last)
        expect(w.truncated).toBe(last ? undefined : true)
        expect(w.more).toBe(last ? undefined : `agent_run_status(run_id="${view.run_id}", offset=${w.next_offset})`)
        if (i > 0) expect(w.output_offset).toBe(live[i - 1]!.next_offset)
      }

      // The final text replaces what was streamed.
      const final = mixed(20_001) + "🚀"
      yield* h.hermes.complete(hid, final)
      yield* alice(h.runs.wait(view.run_id, 30))
      const done = yield* readWindows(h.runs, view.run_id)
      expect(done.map((w) => w.output).join("")).toBe(final)
      expect(done[0]!.output_total).toBe(utf8(final).length)

      const past = yield* alice(h.runs.status(view.run_id, utf8(final).length + 5))
      expect(past).toMatchObject({ output: "", next_offset: null, output_total: utf8(final).length })
      expect(past.truncated).toBeUndefined()
      // An offset inside a character starts at the next whole one.
      const inside = yield* alice(h.runs.status(view.run_id, 2))
      expect(inside.output_offset).toBe(3)
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live(`keeps the newest ${EVENTS_KEPT} events; since_seq pages replay and follow them`, () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "busy" }))
      const hid = [...h.hermes.runs.keys()][0]!
      // run.started is seq 1; then EVENTS_KEPT + 200 tool events, so the first 201 seqs are dropped.
      const emitted = EVENTS_KEPT + 200
      for (let i = 0; i < emitted; i++) yield* h.hermes.emit(hid, "tool.started", { tool: `t${i}`, preview: null })
      const lastSeq = emitted + 1
      const oldest = lastSeq - EVENTS_KEPT + 1
      const status = yield* eventually(alice(h.runs.status(view.run_id, 0)), (v) => v.last_seq === lastSeq, `${emitted} events`)
      expect(status.last_seq).toBe(lastSeq)

      const first = yield* alice(h.runs.events(view.run_id, 0, EVENTS_PAGE_MAX))
      expect(first.events.length).toBe(Math.min(EVENTS_KEPT, EVENTS_PAGE_MAX))
      expect(first.events[0]!.seq).toBe(oldest)
      expect(first.last_seq).toBe(oldest + first.events.length - 1)

      const followed: Array<number> = []
      let since = 0
      for (;;) {
        const page = yield* alice(h.runs.events(view.run_id, since, 120))
        if (page.events.length === 0) {
          expect(page.last_seq).toBe(since)
          break
        }
        followed.push(...page.events.map((e) => e.seq))
        since = page.last_seq
      }
      expect(followed).toEqual(Array.from({ length: EVENTS_KEPT }, (_, i) => oldest + i))
      const replay = yield* alice(h.runs.events(view.run_id, 0, 3))
      expect(replay.events.map((e) => e.seq)).toEqual([oldest, oldest + 1, oldest + 2])
      expect(replay.events[0]).toMatchObject({ type: "tool.started", data: { tool: `t${oldest - 2}`, preview: null } })
      expect(replay.events[0]!.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      const tail = yield* alice(h.runs.wait(view.run_id, 0))
      expect(tail.timed_out).toBe(true)
      expect(tail.events_tail.map((e) => e.seq)).toEqual(Array.from({ length: TAIL_EVENTS }, (_, i) => lastSeq - TAIL_EVENTS + 1 + i))
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a secret split across message.text events is masked in every page that holds a piece of it", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "find the token" }))
      const hid = [...h.hermes.runs.keys()][0]!
      const token = "ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Y"
      const halves = ["the token is " + token.slice(0, 14), token.slice(14) + " and that is all."]
      for (const [i, half] of halves.entries()) {
        yield* h.hermes.deltas(hid, [half])
        yield* eventually(alice(h.runs.status(view.run_id, 0)), (v) => v.last_seq === 2 + i, "a separate flush")
      }
      yield* h.hermes.emit(hid, "tool.started", { tool: "terminal", preview: `echo ${token}` })
      yield* eventually(alice(h.runs.status(view.run_id, 0)), (v) => v.last_seq === 4, "tool event")

      const leaks = (s: string) => [token.slice(4, 14), token.slice(14, 30)].some((piece) => s.includes(piece))
      const whole = yield* alice(h.runs.events(view.run_id, 0, 100))
      expect(whole.events.map((e) => e.type)).toEqual(["run.started", "message.text", "message.text", "tool.started"])
      expect(leaks(JSON.stringify(whole))).toBe(false)
      expect(whole.events[1]!.data["text"]).toBe(`the token is ${MASK}`)
      // Each half alone on its page is still masked, thanks to the stored text beside it.
      const onlyFirst = yield* alice(h.runs.events(view.run_id, 1, 1))
      const onlySecond = yield* alice(h.runs.events(view.run_id, 2, 1))
      expect(leaks(JSON.stringify(onlyFirst))).toBe(false)
      expect(leaks(JSON.stringify(onlySecond))).toBe(false)
      expect(onlySecond.events[0]!.data["text"]).toBe(`${MASK} and that is all.`)

      const status = yield* alice(h.runs.status(view.run_id, 0))
      expect(leaks(JSON.stringify(status))).toBe(false)
      const tail = yield* alice(h.runs.wait(view.run_id, 0))
      expect(leaks(JSON.stringify(tail))).toBe(false)
      const list = yield* alice(h.runs.list({ limit: 5 }))
      expect(leaks(JSON.stringify(list))).toBe(false)
      expect(list.runs[0]!.output_preview).toBe(`the token is ${MASK} and that is all.`)
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("at the live edge a trailing token prefix is masked through the end; once finished it is not", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "Authorization: Bearer abcdefghijklmnop1234 please" }))
      expect(view.input_preview).not.toContain("abcdefghijklmnop1234")
      const hid = [...h.hermes.runs.keys()][0]!
      yield* h.hermes.deltas(hid, ["ends with ghp_abc"])
      const live = yield* eventually(alice(h.runs.status(view.run_id, 0)), (v) => v.last_seq === 2, "the delta")
      expect(live.output).toBe(`ends with ${MASK}`)
      expect((yield* alice(h.runs.events(view.run_id, 0, 10))).events[1]!.data["text"]).toBe(`ends with ${MASK}`)
      expect((yield* alice(h.runs.wait(view.run_id, 0))).events_tail[1]!.data["text"]).toBe(`ends with ${MASK}`)
      expect((yield* alice(h.runs.list({ limit: 1 }))).runs[0]!.output_preview).toBe(`ends with ${MASK}`)

      yield* h.hermes.complete(hid, "ends with ghp_abc")
      const done = yield* alice(h.runs.wait(view.run_id, 30))
      expect(done.output).toBe("ends with ghp_abc")
      expect(done.events_tail[1]!.data["text"]).toBe("ends with ghp_abc")
      expect((yield* alice(h.runs.list({ limit: 1 }))).runs[0]!.output_preview).toBe("ends with ghp_abc")
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("texts over 16 KiB are cut with truncated: error, pending and events", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const a = yield* alice(h.runs.start({ agent: "hermes", input: "a" }))
      const b = yield* alice(h.runs.start({ agent: "hermes", input: "b" }))
      const [ha, hb] = [...h.hermes.runs.keys()]
      const huge = "é".repeat(20_000)
      yield* h.hermes.emit(ha!, "tool.started", { tool: "t", preview: huge })
      yield* h.hermes.emit(ha!, "run.failed", { error: huge })
      yield* h.hermes.emit(hb!, "clarify.request", { clarify_id: "c", question: huge, choices: null, multi_select: false })
      const failed = yield* alice(h.runs.wait(a.run_id, 30))
      expect(failed.truncated).toBe(true)
      expect(utf8(failed.error ?? "").length).toBe(16 * 1024)
      const toolEvent = failed.events_tail.find((e) => e.type === "tool.started")!
      expect(toolEvent.truncated).toBe(true)
      // An event's strings share one 16 KiB budget (here "t" took a byte; "é" is two).
      expect(utf8(String(toolEvent.data["tool"]) + String(toolEvent.data["preview"])).length).toBeGreaterThan(16 * 1024 - 2)
      expect(utf8(String(toolEvent.data["tool"]) + String(toolEvent.data["preview"])).length).toBeLessThanOrEqual(16 * 1024)
      const asked = yield* alice(h.runs.wait(b.run_id, 30))
      expect(asked.truncated).toBe(true)
      // `pending` as a whole holds at most 16 KiB of text (its request_id and kind take a few bytes).
      expect(utf8(asked.pending?.kind === "clarification" ? asked.pending.question : "").length).toBeGreaterThan(16 * 1024 - 20)
      expect(utf8(JSON.stringify(Object.values(asked.pending ?? {}).filter((v) => typeof v === "string").join(""))).length).toBeLessThanOrEqual(16 * 1024 + 2)
      expect((yield* alice(h.runs.list({ limit: 5 }))).runs.find((r) => r.run_id === b.run_id)?.truncated).toBe(true)
      expect((yield* as(Caller.admin)(h.runs.list({ limit: 5, status: "failed" }))).runs.map((r) => r.run_id)).toEqual([a.run_id])
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("lists the caller's runs newest first with output_preview of 200 characters, filtered and limited", () =>
    Effect.gen(function* () {
      const h = yield* harness({ maxRuns: 10 })
      const ids: Array<string> = []
      for (let i = 0; i < 4; i++) ids.push((yield* alice(h.runs.start({ agent: "hermes", input: `task ${i}` }))).run_id)
      yield* as("bob")(h.runs.start({ agent: "hermes", input: "bob's" }))
      const hid = [...h.hermes.runs.keys()][1]!
      yield* h.hermes.complete(hid, "🚀".repeat(500))
      yield* alice(h.runs.wait(ids[1]!, 30))
      const list = yield* alice(h.runs.list({ limit: 20 }))
      expect(list.runs.map((r) => r.run_id)).toEqual([...ids].reverse())
      const done = list.runs.find((r) => r.run_id === ids[1])!
      expect(done.output_preview).toBe("🚀".repeat(200))
      expect("output" in done).toBe(false)
      expect(list.runs.find((r) => r.run_id === ids[0])!.output_preview).toBeNull()
      expect((yield* alice(h.runs.list({ limit: 2 }))).runs.length).toBe(2)
      expect((yield* alice(h.runs.list({ limit: 20, status: "completed" }))).runs.map((r) => r.run_id)).toEqual([ids[1]])
    }).pipe(Effect.scoped, Effect.provide(TestDb)))
})
