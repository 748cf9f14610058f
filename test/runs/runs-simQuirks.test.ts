/**
 * Quirks seen against the newer Hermes builds (numbered SSE frames, Last-Event-ID replay, status
 * that shows the pending approval), played against the simulator's newer generation: what a bridge
 * restart or a status poll records, and what the stored event data keeps.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, HashMap, Layer, Logger, LogLevel } from "effect"
import { TestDb } from "../support/testDb.ts"
import { as, eventually, statusIs } from "./support/harness.ts"
import { simHarness } from "./support/simHarness.ts"
import type { SimRun } from "../../src/hermes/sim/run.ts"

const alice = as("alice")

interface Line {
  readonly message: string
  readonly level: string
  readonly annotations: Record<string, unknown>
}

/** Every log line of the test's fibers (the followers' included), kept for the test. */
const capturing = (lines: Array<Line>) =>
  Layer.merge(
    Logger.replace(
      Logger.defaultLogger,
      Logger.make(({ annotations, logLevel, message }) => {
        const text = Array.isArray(message) ? message.map(String).join(" ") : String(message)
        lines.push({ message: text, level: logLevel.label, annotations: Object.fromEntries(HashMap.toEntries(annotations)) })
      })
    ),
    Logger.minimumLogLevel(LogLevel.Info)
  )

const decidedLines = (lines: ReadonlyArray<Line>) => lines.filter((l) => l.message === "run approval decided")

describe("newer-build quirks against the simulator", () => {
  it.live("after a bridge restart, a pending approval is recorded once in the run's events (one inbox row)", () =>
    Effect.gen(function* () {
      const h = yield* simHarness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "[sim:approval] clean up" }))
      yield* eventually(alice(h.runs.status(view.run_id, 0)), statusIs("waiting_for_approval"), "approval")
      const second = yield* h.rebuild
      // The restarted follower checks Hermes's status (which shows the approval) and re-attaches.
      const again = yield* eventually(alice(second.runs.status(view.run_id, 0)), statusIs("waiting_for_approval"), "approval again")
      yield* Effect.sleep("300 millis")
      const requests = (yield* alice(second.runs.events(view.run_id, 0, 500))).events.filter((e) => e.type === "approval.request")
      expect(requests.length).toBe(1)
      expect(requests[0]!.data["synthetic"]).toBeUndefined()
      expect((yield* second.inbox.list({ state: "pending" })).length).toBe(1)
      yield* second.inbox.decide(again.awaiting_approval!.approval_id, { approve: true, by: "admin" })
      const done = yield* alice(second.runs.wait(view.run_id, 60))
      expect(done.status).toBe("completed")
      const types = (yield* alice(second.runs.events(view.run_id, 0, 500))).events.map((e) => e.type)
      expect(types.filter((t) => t === "approval.request").length).toBe(1)
      expect(types.filter((t) => t === "approval.responded").length).toBe(1)
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a numbered build's own seq is not kept in the stored event data beside the bridge's", () =>
    Effect.gen(function* () {
      const h = yield* simHarness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "[sim:approval] clean up" }))
      const waiting = yield* eventually(alice(h.runs.status(view.run_id, 0)), statusIs("waiting_for_approval"), "approval")
      yield* h.inbox.decide(waiting.awaiting_approval!.approval_id, { approve: true, by: "admin" })
      const done = yield* alice(h.runs.wait(view.run_id, 60))
      expect(done.status).toBe("completed")
      const events = (yield* alice(h.runs.events(view.run_id, 0, 500))).events
      expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(["tool.started", "tool.completed", "approval.request", "approval.responded"]))
      for (const e of events) expect(Object.keys(e.data)).not.toContain("seq")
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("an approval decided in Hermes (its approvals.timeout denied it) is logged once, at info: by Hermes, which choice, run and request", () => {
    const lines: Array<Line> = []
    return Effect.gen(function* () {
      const h = yield* simHarness({ sim: { approvalTimeoutMs: 300 } })
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "[sim:approval] clean up" }))
      const done = yield* alice(h.runs.wait(view.run_id, 60))
      expect(done.status).toBe("completed")
      const request = (yield* alice(h.runs.events(view.run_id, 0, 500))).events.find((e) => e.type === "approval.request")!
      const decided = decidedLines(lines)
      expect(decided).toHaveLength(1)
      expect(decided[0]).toMatchObject({
        level: "INFO",
        annotations: { run_id: view.run_id, request_id: request.data["request_id"], decided_by: "hermes", via: "hermes", choice: "deny", state: "expired" }
      })
    }).pipe(Effect.scoped, Effect.provide(capturing(lines)), Effect.provide(TestDb))
  })

  it.live("an approval the operator decides in the inbox is logged once (by the operator, via the inbox), not again when Hermes confirms it", () => {
    const lines: Array<Line> = []
    return Effect.gen(function* () {
      const h = yield* simHarness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "[sim:approval] clean up" }))
      const waiting = yield* eventually(alice(h.runs.status(view.run_id, 0)), statusIs("waiting_for_approval"), "approval")
      yield* h.inbox.decide(waiting.awaiting_approval!.approval_id, { approve: true, choice: "session", by: "admin", via: "page" })
      expect((yield* alice(h.runs.wait(view.run_id, 60))).status).toBe("completed")
      const decided = decidedLines(lines)
      expect(decided).toHaveLength(1)
      expect(decided[0]).toMatchObject({ level: "INFO", annotations: { run_id: view.run_id, decided_by: "admin", via: "page", choice: "session", state: "approved" } })
    }).pipe(Effect.scoped, Effect.provide(capturing(lines)), Effect.provide(TestDb))
  })

  it.live("a run recovered by polling Hermes's status gets the events it missed, marked as inferred, with what the status cannot tell left unknown", () =>
    Effect.gen(function* () {
      // An older build: after the restart its events route is 404, so the run is seen by its status only.
      const h = yield* simHarness({ sim: { generation: "old" } })
      const input = "[sim:approval] clean up"
      const view = yield* alice(h.runs.start({ agent: "hermes", input }))
      yield* eventually(alice(h.runs.status(view.run_id, 0)), statusIs("waiting_for_approval"), "approval")
      const simRun = [...h.sim.state.runs.values()].find((r: SimRun) => r.input === input)!
      // While the bridge is down, the approval is answered in Hermes itself and the run ends there.
      const second = yield* h.rebuildAfter(Effect.gen(function* () {
        const profile = yield* h.hermes.profile("hermes")
        yield* h.hermes.approval(profile, simRun.id, { choice: "once" })
        yield* eventually(Effect.sync(() => simRun.status), (s) => s === "completed", "the run's end in Hermes")
      }))
      const done = yield* alice(second.runs.wait(view.run_id, 60))
      expect(done.status).toBe("completed")
      const events = (yield* alice(second.runs.events(view.run_id, 0, 500))).events
      const types = events.map((e) => e.type)
      expect(types.slice(types.indexOf("approval.request"))).toEqual(["approval.request", "approval.responded", "tool.completed", "message.text", "run.completed"])
      const responded = events.find((e) => e.type === "approval.responded")!
      expect(responded.data).toMatchObject({ synthetic: true, unknown: ["choice"] })
      expect(responded.data).not.toHaveProperty("choice")
      const completed = events.find((e) => e.type === "tool.completed")!
      expect(completed.data).toEqual({ tool: "terminal", synthetic: true, unknown: ["duration", "error"] })
      // Every step of the run holds one closing: the numbers stay contiguous.
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1))
      expect((yield* second.inbox.list({ state: "expired" })).length).toBe(1)
    }).pipe(Effect.scoped, Effect.provide(TestDb)))
})
