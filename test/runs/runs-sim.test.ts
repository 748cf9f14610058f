/**
 * The run service against the Hermes simulator (live HermesClient over loopback HTTP, real inbox
 * and ledger): both Hermes generations, approvals decided in the inbox, clarifications, secrets in
 * streamed output, dropped streams resumed with Last-Event-ID, a Hermes restart that loses runs,
 * a bridge restart mid-run, Hermes's cap (429), a stopped Hermes, stop and steer.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { errorCode } from "../../src/domain/errors.ts"
import { SIM_FAKE_SECRETS } from "../../src/hermes/sim/script.ts"
import type { SimRun } from "../../src/hermes/sim/run.ts"
import { TestDb } from "../support/testDb.ts"
import { as, eventually, failure, statusIs } from "./support/harness.ts"
import { simHarness } from "./support/simHarness.ts"

const alice = as("alice")

/** The simulator's own record of the run started with this input. */
const simRunOf = (sim: { readonly state: { readonly runs: ReadonlyMap<string, SimRun> } }, input: string) =>
  [...sim.state.runs.values()].find((r) => r.input === input)

describe("runs against the simulator", () => {
  for (const generation of ["new", "old"] as const) {
    it.live(`a ${generation}-generation run streams to completion with nothing lost`, () =>
      Effect.gen(function* () {
        const h = yield* simHarness({ sim: { generation } })
        const input = "[sim:deltas=200,unicode] summarise the repo"
        const view = yield* alice(h.runs.start({ agent: "hermes", input }))
        const done = yield* alice(h.runs.wait(view.run_id, 60))
        expect(done.status).toBe("completed")
        const simRun = simRunOf(h.sim, input)!
        expect(done.output).toBe(simRun.output)
        expect(done.output).toContain("東京 🚀")
        expect(done.usage).toEqual(simRun.usage)
        const page = yield* alice(h.runs.events(view.run_id, 0, 500))
        const text = page.events.filter((e) => e.type === "message.text").map((e) => e.data["text"]).join("")
        if (generation === "new") {
          // Every delta arrived, in order, exactly once.
          expect(text).toBe(simRun.output)
          expect(page.events.map((e) => e.type)).toContain("tool.started")
        }
        expect(page.events.at(-1)?.type).toBe("run.completed")
      }).pipe(Effect.scoped, Effect.provide(TestDb)))
  }

  it.live("an approval waits for the operator in the inbox; approving lets the run finish", () =>
    Effect.gen(function* () {
      const h = yield* simHarness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "[sim:approval] clean up" }))
      const waiting = yield* eventually(alice(h.runs.status(view.run_id, 0)), statusIs("waiting_for_approval"), "approval")
      expect(waiting.awaiting_approval?.command).toBe("rm -rf ./build")
      const rows = yield* h.inbox.list({ state: "pending" })
      expect(rows.length).toBe(1)
      yield* h.inbox.decide(waiting.awaiting_approval!.approval_id, { approve: true, by: "admin" })
      const done = yield* alice(h.runs.wait(view.run_id, 60))
      expect(done.status).toBe("completed")
      expect(done.output).toContain("after approval")
      expect((yield* h.inbox.list({ state: "approved" })).length).toBe(1)
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("an old-generation run that lost its stream (status polling) is running again once its approval is answered", () =>
    Effect.gen(function* () {
      // An older build, but one whose status shows the pending approval and that can be steered
      // (the releases on PyPI do neither: there, polling cannot see an approval at all).
      const h = yield* simHarness({ sim: { generation: "old", statusShowsApproval: true, steer: true } })
      // The connection drops after the first frame: an older build answers 404 to the reconnect, so
      // the approval, and everything after it, is seen by polling the run's status.
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "[sim:approval,drop=1,slow=2s] clean up" }))
      const waiting = yield* eventually(alice(h.runs.status(view.run_id, 0)), statusIs("waiting_for_approval"), "approval")
      yield* h.inbox.decide(waiting.awaiting_approval!.approval_id, { approve: true, by: "admin" })
      // Hermes goes on with the run (about a second per frame); the bridge must say so.
      const after = yield* eventually(alice(h.runs.status(view.run_id, 0)), (v) => v.status !== "waiting_for_approval", "the approval's end")
      expect(after.status).toBe("running")
      yield* alice(h.runs.steer(view.run_id, "keep the logs"))
      const done = yield* alice(h.runs.wait(view.run_id, 60))
      expect(done.status).toBe("completed")
      expect(done.output).toContain("after approval")
      const types = (yield* alice(h.runs.events(view.run_id, 0, 500))).events.map((e) => e.type)
      expect(types.filter((t) => t === "approval.responded").length).toBe(1)
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("an approval Hermes times out closes as expired", () =>
    Effect.gen(function* () {
      const h = yield* simHarness({ sim: { approvalTimeoutMs: 300 } })
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "[sim:approval] clean up" }))
      const done = yield* alice(h.runs.wait(view.run_id, 60))
      expect(done.status).toBe("completed")
      expect(done.output).toContain("was denied")
      yield* eventually(h.inbox.list({ state: "expired" }), (rows) => rows.length === 1, "expired row")
      expect((yield* h.inbox.list({ state: "pending" })).length).toBe(0)
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a clarification ends the wait and agent_run_answer resumes the run", () =>
    Effect.gen(function* () {
      const h = yield* simHarness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "[sim:clarify] deploy it" }))
      const asked = yield* alice(h.runs.wait(view.run_id, 60))
      expect(asked.status).toBe("waiting_for_clarification")
      expect(asked.pending).toMatchObject({ kind: "clarification", choices: ["staging", "production"] })
      yield* alice(h.runs.answer(view.run_id, asked.pending!.request_id, "production"))
      const done = yield* alice(h.runs.wait(view.run_id, 60))
      expect(done.status).toBe("completed")
      expect(done.output).toContain("You chose: production")
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("secrets split across deltas never leave the bridge, in any view", () =>
    Effect.gen(function* () {
      const h = yield* simHarness()
      const live = yield* alice(h.runs.start({ agent: "hermes", input: "[sim:secrets,slow=1500ms] show config" }))
      const done = yield* alice(h.runs.start({ agent: "hermes", input: "[sim:secrets] show config" }))
      const seen: Array<string> = []
      // Sample while streaming (live edge) and after the end.
      for (let i = 0; i < 30; i++) {
        seen.push(JSON.stringify(yield* alice(h.runs.status(live.run_id, 0))))
        seen.push(JSON.stringify(yield* alice(h.runs.events(live.run_id, 0, 500))))
        seen.push(JSON.stringify(yield* alice(h.runs.list({ limit: 10 }))))
        yield* Effect.sleep("50 millis")
      }
      for (const id of [live.run_id, done.run_id]) {
        seen.push(JSON.stringify(yield* alice(h.runs.wait(id, 60))))
        seen.push(JSON.stringify(yield* alice(h.runs.events(id, 0, 500))))
        for (let since = 0; since < 60; since += 7) seen.push(JSON.stringify(yield* alice(h.runs.events(id, since, 3))))
      }
      const all = seen.join("\n")
      expect(all).toContain("***REDACTED***")
      for (const secret of SIM_FAKE_SECRETS) expect(all).not.toContain(secret.slice(4, 16))
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a dropped stream resumes with Last-Event-ID: every delta once", () =>
    Effect.gen(function* () {
      const h = yield* simHarness()
      const input = "[sim:deltas=120,drop] long answer"
      const view = yield* alice(h.runs.start({ agent: "hermes", input }))
      const done = yield* alice(h.runs.wait(view.run_id, 60))
      const page = yield* alice(h.runs.events(view.run_id, 0, 500))
      const text = page.events.filter((e) => e.type === "message.text").map((e) => e.data["text"]).join("")
      expect(text).toBe(simRunOf(h.sim, input)!.output)
      expect(done.output).toBe(text)
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a Hermes restart that loses the run ends it interrupted", () =>
    Effect.gen(function* () {
      const h = yield* simHarness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "[sim:slow=60s] long job" }))
      yield* eventually(alice(h.runs.status(view.run_id, 0)), (v) => v.last_seq > 1, "first events")
      yield* h.sim.restart({ loseRuns: true })
      const ended = yield* alice(h.runs.wait(view.run_id, 60))
      expect(ended.status).toBe("interrupted")
      expect(ended.error).not.toBeNull()
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a bridge restart mid-run re-attaches and finishes the run with the whole output", () =>
    Effect.gen(function* () {
      const h = yield* simHarness()
      const input = "[sim:deltas=60,slow=1500ms] steady work"
      const view = yield* alice(h.runs.start({ agent: "hermes", input, idempotency_key: "job-1" }))
      yield* eventually(alice(h.runs.status(view.run_id, 0)), (v) => v.last_seq > 2, "some output")
      const second = yield* h.rebuild
      const done = yield* alice(second.runs.wait(view.run_id, 60))
      expect(done.status).toBe("completed")
      const page = yield* alice(second.runs.events(view.run_id, 0, 500))
      const text = page.events.filter((e) => e.type === "message.text").map((e) => e.data["text"]).join("")
      expect(text).toBe(simRunOf(h.sim, input)!.output)
      expect((yield* alice(second.runs.start({ agent: "hermes", input, idempotency_key: "job-1" }))).run_id).toBe(view.run_id)
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("an old-generation run resumed after a bridge restart (status polling) stores only the missing text", () =>
    Effect.gen(function* () {
      const h = yield* simHarness({ sim: { generation: "old" } })
      const input = "[sim:deltas=60,slow=1500ms] steady work"
      const view = yield* alice(h.runs.start({ agent: "hermes", input }))
      yield* eventually(alice(h.runs.status(view.run_id, 0)), (v) => (v.output ?? "").length > 10, "some output")
      const second = yield* h.rebuild
      const done = yield* alice(second.runs.wait(view.run_id, 60))
      expect(done.status).toBe("completed")
      expect(done.output).toBe(simRunOf(h.sim, input)!.output)
      const page = yield* alice(second.runs.events(view.run_id, 0, 500))
      const text = page.events.filter((e) => e.type === "message.text").map((e) => e.data["text"]).join("")
      expect(text).toBe(simRunOf(h.sim, input)!.output)
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("Hermes's cap (429) queues the start until its Retry-After and a free slot; a stopped Hermes answers agent_unavailable", () =>
    Effect.gen(function* () {
      const h = yield* simHarness({ sim: { maxConcurrentRuns: 1 } })
      const one = yield* alice(h.runs.start({ agent: "hermes", input: "[sim:slow=60s] one" }))
      const two = yield* as("bob")(h.runs.start({ agent: "hermes", input: "two" }))
      expect(two.status).toBe("queued")
      yield* alice(h.runs.stop(one.run_id))
      const done = yield* as("bob")(h.runs.wait(two.run_id, 60))
      expect(done.status).toBe("completed")
      yield* Effect.sleep("1200 millis")
      yield* h.sim.stop
      const down = yield* failure(as("bob")(h.runs.start({ agent: "hermes", input: "three" })))
      expect(errorCode(down)).toBe("bridge.agent_unavailable")
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("steer while running, then stop: stopping, then cancelled", () =>
    Effect.gen(function* () {
      const h = yield* simHarness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "[sim:slow=60s] refactor" }))
      yield* eventually(alice(h.runs.status(view.run_id, 0)), (v) => v.last_seq > 1, "running")
      yield* alice(h.runs.steer(view.run_id, "keep the public API"))
      yield* eventually(alice(h.runs.events(view.run_id, 0, 500)), (p) => p.events.some((e) => e.type === "run.steered"), "steered")
      const stopping = yield* alice(h.runs.stop(view.run_id))
      expect(["stopping", "cancelled"]).toContain(stopping.status)
      const ended = yield* alice(h.runs.wait(view.run_id, 60))
      expect(ended.status).toBe("cancelled")
      expect(errorCode(yield* failure(alice(h.runs.steer(view.run_id, "more"))))).toBe("bridge.run_not_running")
    }).pipe(Effect.scoped, Effect.provide(TestDb)))
})
