/**
 * Restart and supervision: everything needed to re-attach is in SQLite (Hermes's id and last frame
 * id), so a service rebuilt over the same database resumes each unfinished run exactly after what it
 * stored; a run Hermes no longer knows ends `interrupted`; a failing follower is restarted.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Option, Scope } from "effect"
import { TestDb } from "../support/testDb.ts"
import { GONE_ERROR } from "../../src/hermes/client/follow.ts"
import { UNKEYED_PROFILE_ERROR, UNKNOWN_PROFILE_ERROR } from "../../src/services/runs/follower.ts"
import { as, buildRuns, eventually, harness, statusIs } from "./support/harness.ts"

const alice = as("alice")

type Harness = Effect.Effect.Success<ReturnType<typeof harness>>

/** Shuts the service in `scope` down and builds a new one over the same database and fake Hermes. */
const restart = (h: Harness, scope: Scope.CloseableScope) =>
  Effect.gen(function* () {
    yield* Scope.close(scope, Exit.void)
    const next = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(next, Exit.void))
    return { ...(yield* buildRuns(h.hermes, h.inbox, h.options, next)), scope: next }
  })

describe("restart and supervision", () => {
  it.live("a rebuilt service re-attaches and resumes after the last stored frame, losing and repeating nothing", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "long job", idempotency_key: "job" }))
      const hid = [...h.hermes.runs.keys()][0]!
      yield* h.hermes.deltas(hid, ["one ", "two "])
      yield* eventually(alice(h.runs.status(view.run_id, 0)), (v) => v.output === "one two ", "first deltas")

      const second = yield* restart(h, h.scope)
      // While the bridge was down, Hermes went on.
      yield* h.hermes.deltas(hid, ["three ", "four"])
      yield* h.hermes.emit(hid, "clarify.request", { clarify_id: "c1", question: "Go on?", choices: ["yes", "no"], multi_select: false })
      expect(yield* second.supervisor.isFollowed(view.run_id)).toBe(true)

      const asked = yield* alice(second.runs.wait(view.run_id, 30))
      expect(asked.status).toBe("waiting_for_clarification")
      expect(asked.output).toBe("one two three four")
      expect(asked.pending).toMatchObject({ kind: "clarification", question: "Go on?" })

      const third = yield* restart(h, second.scope)
      // The pending clarification survived, and can be answered through the new service.
      const still = yield* alice(third.runs.status(view.run_id, 0))
      expect(still.pending?.request_id).toBe("c1")
      yield* alice(third.runs.answer(view.run_id, "c1", "yes"))
      yield* h.hermes.complete(hid, "one two three four")
      const done = yield* alice(third.runs.wait(view.run_id, 30))
      expect(done.status).toBe("completed")
      const page = yield* alice(third.runs.events(view.run_id, 0, 500))
      const texts = page.events.filter((e) => e.type === "message.text").map((e) => e.data["text"]).join("")
      expect(texts).toBe("one two three four")
      expect(page.events.map((e) => e.seq)).toEqual(page.events.map((_, i) => i + 1))
      // The same idempotent request after restarts is still that run.
      expect((yield* alice(third.runs.start({ agent: "hermes", input: "long job", idempotency_key: "job" }))).run_id).toBe(view.run_id)
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a shutdown ends every follow it held: no event stream of a parked run is read on", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const views = yield* Effect.forEach(["one", "two", "three"], (input) => alice(h.runs.start({ agent: "hermes", input })))
      yield* Effect.forEach(views, (v) => eventually(h.supervisor.isFollowed(v.run_id), (followed) => followed, "followed"))
      yield* eventually(Effect.sync(() => h.hermes.calls.open), (n) => n === 3, "three streams read")
      yield* Scope.close(h.scope, Exit.void)
      yield* eventually(Effect.sync(() => h.hermes.calls.open), (n) => n === 0, "no stream read after the shutdown")
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a run Hermes no longer knows ends interrupted with a clear error", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "x" }))
      const hid = [...h.hermes.runs.keys()][0]!
      yield* Scope.close(h.scope, Exit.void)
      yield* h.hermes.forget(hid)
      const second = yield* restart(h, h.scope)
      const ended = yield* alice(second.runs.wait(view.run_id, 30))
      expect(ended.status).toBe("interrupted")
      expect(ended.error).toMatch(/no longer knows this run/)
      expect(ended.events_tail.at(-1)?.type).toBe("run.interrupted")
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a run whose profile was removed, or lost its key, ends interrupted at re-attach and frees its client's slot", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const removed = yield* alice(h.runs.start({ agent: "hermes/coder", input: "on a profile about to go" }))
      const unkeyed = yield* alice(h.runs.start({ agent: "hermes", input: "on a profile about to lose its key" }))
      const coder = h.hermes.shape.profiles.find((p) => p.agent === "hermes/coder")!
      const main = h.hermes.shape.profiles.find((p) => p.agent === "hermes")!
      yield* h.hermes.reconfigure(coder.agent, undefined)
      yield* h.hermes.reconfigure(main.agent, { ...main, key: Option.none() })
      const second = yield* restart(h, h.scope)
      const gone = yield* alice(second.runs.wait(removed.run_id, 30))
      expect([gone.status, gone.error]).toEqual(["interrupted", UNKNOWN_PROFILE_ERROR])
      const keyless = yield* alice(second.runs.wait(unkeyed.run_id, 30))
      expect([keyless.status, keyless.error]).toEqual(["interrupted", UNKEYED_PROFILE_ERROR])
      expect(yield* second.supervisor.isFollowed(unkeyed.run_id)).toBe(false)
      // Neither holds a slot of alice's cap any more.
      yield* h.hermes.reconfigure(main.agent, main)
      // (3 is the harness's cap.)
      for (let i = 0; i < 3; i++) yield* alice(second.runs.start({ agent: "hermes", input: `after ${i}` }))
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a re-attached run takes Hermes's status, and drops a question or approval Hermes no longer waits on", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const queued = yield* alice(h.runs.start({ agent: "hermes", input: "queued" }))
      const asked = yield* alice(h.runs.start({ agent: "hermes", input: "asked" }))
      const approving = yield* alice(h.runs.start({ agent: "hermes", input: "approving" }))
      const [hq, ha, hp] = [...h.hermes.runs.keys()]
      yield* h.hermes.emit(ha!, "clarify.request", { clarify_id: "c1", question: "?", choices: null, multi_select: false })
      yield* h.hermes.emit(hp!, "approval.request", { request_id: "p".repeat(32), command: "x", description: "y", choices: ["once", "deny"] })
      yield* eventually(alice(h.runs.status(approving.run_id, 0)), statusIs("waiting_for_approval"), "approval")
      yield* eventually(alice(h.runs.status(asked.run_id, 0)), statusIs("waiting_for_clarification"), "question")

      // While the bridge is down, Hermes moves on without telling a stream (an older build would not).
      yield* Scope.close(h.scope, Exit.void)
      h.hermes.runs.get(hq!)!.status = "queued"
      h.hermes.runs.get(ha!)!.status = "running"
      h.hermes.runs.get(ha!)!.pendingClarify = null
      h.hermes.runs.get(hp!)!.status = "running"
      const second = yield* restart(h, h.scope)

      expect((yield* eventually(alice(second.runs.status(queued.run_id, 0)), statusIs("queued"), "queued")).status).toBe("queued")
      const resumed = yield* eventually(alice(second.runs.status(asked.run_id, 0)), statusIs("running"), "resync")
      expect(resumed.pending).toBeNull()
      const events = yield* alice(second.runs.events(asked.run_id, 0, 50))
      expect(events.events.at(-1)).toMatchObject({ type: "clarify.answered", data: { request_id: "c1", via: "hermes" } })
      yield* eventually(alice(second.runs.status(approving.run_id, 0)), statusIs("running"), "approval resync")
      yield* eventually(Effect.sync(() => [...h.inbox.rows.values()][0]!.state), (s) => s === "expired", "expired row")

      // The first event Hermes sends moves the queued run on.
      yield* h.hermes.emit(hq!, "tool.started", { tool: "terminal", preview: null })
      yield* eventually(alice(second.runs.status(queued.run_id, 0)), statusIs("running"), "running")
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a stream that ends without a terminal event is reconciled from Hermes's status", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      h.hermes.faults.followEnds = 3
      const gone = yield* alice(h.runs.start({ agent: "hermes", input: "x" }))
      const finished = yield* alice(h.runs.start({ agent: "hermes", input: "y" }))
      const going = yield* alice(h.runs.start({ agent: "hermes", input: "z" }))
      const [h1, h2, h3] = [...h.hermes.runs.keys()]
      // Hermes forgot the first, finished the second, and the third is still running (follow again).
      yield* h.hermes.forget(h1!)
      h.hermes.runs.get(h2!)!.status = "completed"
      h.hermes.runs.get(h2!)!.output = "final from status"
      const ended = yield* alice(h.runs.wait(gone.run_id, 30))
      expect(ended.status).toBe("interrupted")
      expect(ended.error).toBe(GONE_ERROR)
      const completed = yield* alice(h.runs.wait(finished.run_id, 30))
      expect(completed.status).toBe("completed")
      expect(completed.output).toBe("final from status")
      yield* h.hermes.deltas(h3!, ["resumed"])
      yield* h.hermes.complete(h3!)
      const third = yield* alice(h.runs.wait(going.run_id, 30))
      expect(third.output).toBe("resumed")
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a follower that fails or dies is restarted, never dropped", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      h.hermes.faults.followFailures = 2
      h.hermes.faults.followDefects = 1
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "x" }))
      const hid = [...h.hermes.runs.keys()][0]!
      yield* eventually(Effect.sync(() => h.hermes.calls.follow), (n) => n >= 4, "restarts")
      expect(yield* h.supervisor.isFollowed(view.run_id)).toBe(true)
      yield* h.hermes.deltas(hid, ["after the storm"])
      yield* h.hermes.complete(hid)
      const done = yield* alice(h.runs.wait(view.run_id, 30))
      expect(done.status).toBe("completed")
      expect(done.output).toBe("after the storm")
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a cancelled wait stops waiting, never the run", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "x" }))
      const hid = [...h.hermes.runs.keys()][0]!
      const waiter = yield* Effect.fork(alice(h.runs.wait(view.run_id, 600)))
      // The wait is waiting (its signal subscribed) before it is cancelled.
      yield* eventually(h.signals.size, (n) => n >= 1, "the wait subscribed")
      yield* Fiber.interrupt(waiter)
      yield* h.hermes.deltas(hid, ["still going"])
      yield* h.hermes.complete(hid)
      const done = yield* eventually(alice(h.runs.status(view.run_id, 0)), statusIs("completed"), "completion")
      expect(done.output).toBe("still going")
      expect(h.hermes.calls.stop).toEqual([])
    }).pipe(Effect.scoped, Effect.provide(TestDb)))
})
