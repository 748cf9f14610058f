/**
 * The run service end to end at service level (fake Hermes, real ledger): a run's life through
 * every status, deltas coalesced into message.text, approvals through the inbox, clarifications,
 * steer, stop, and waits that end on the right things only.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Option, Scope } from "effect"
import { errorCode } from "../../src/domain/errors.ts"
import { TestDb } from "../support/testDb.ts"
import { as, buildRuns, eventually, failure, harness, statusIs } from "./support/harness.ts"
import { makeFakeHermes } from "../../src/hermes/client/fakeHermes.ts"
import { Inbox } from "../../src/services/inbox/Inbox.ts"
import { InboxTest } from "../../src/services/inbox/InboxTest.ts"

const alice = as("alice")

describe("run flow", () => {
  it.live("a run streams, completes, and its output is the final text", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "write a haiku" }))
      expect(view.run_id).toMatch(/^run_[0-9a-f]{32}$/)
      expect(view.status).toBe("running")
      expect(view.client).toBe("alice")
      expect(view.agent).toBe("hermes")
      expect(view.profile).toBe("default")
      expect(view.output).toBeNull()
      expect(view.last_seq).toBe(1)
      expect(view.input_preview).toBe("write a haiku")

      const hermesId = [...h.hermes.runs.keys()][0]!
      expect(hermesId).not.toBe(view.run_id)
      yield* h.hermes.deltas(hermesId, ["Old pond, ", "a frog ", "jumps in"])
      const streaming = yield* eventually(alice(h.runs.status(view.run_id, 0)), (v) => v.output === "Old pond, a frog jumps in", "deltas")
      expect(streaming.status).toBe("running")

      yield* h.hermes.complete(hermesId, "Old pond, a frog jumps in — splash")
      const done = yield* alice(h.runs.wait(view.run_id, 30))
      expect(done.timed_out).toBe(false)
      expect(done.status).toBe("completed")
      expect(done.output).toBe("Old pond, a frog jumps in — splash")
      expect(done.usage).toEqual({ input_tokens: 3, output_tokens: 5, total_tokens: 8 })
      const types = done.events_tail.map((e) => e.type)
      expect(types[0]).toBe("run.started")
      expect(types[types.length - 1]).toBe("run.completed")
      // Three deltas, one flush: coalesced into a single message.text.
      expect(types.filter((t) => t === "message.text").length).toBe(1)
      expect(done.events_tail.find((e) => e.type === "message.text")?.data).toEqual({ text: "Old pond, a frog jumps in" })
      expect(done.events_tail.map((e) => e.seq)).toEqual(done.events_tail.map((_, i) => i + 1))
      expect(yield* eventually(h.supervisor.isFollowed(view.run_id), (b) => !b, "follower to end")).toBe(false)
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("failed and cancelled and interrupted runs carry their end", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const a = yield* alice(h.runs.start({ agent: "hermes", input: "a" }))
      const b = yield* alice(h.runs.start({ agent: "hermes", input: "b" }))
      const c = yield* alice(h.runs.start({ agent: "hermes/coder", input: "c" }))
      const [ha, hb, hc] = [...h.hermes.runs.keys()]
      yield* h.hermes.emit(ha!, "run.failed", { error: "tool crashed: Authorization: Bearer abcdef0123456789abcdef" })
      yield* h.hermes.emit(hb!, "run.cancelled")
      yield* h.hermes.emit(hc!, "run.interrupted", { error: "The gateway restarted before this run settled." })
      const fa = yield* alice(h.runs.wait(a.run_id, 30))
      const fb = yield* alice(h.runs.wait(b.run_id, 30))
      const fc = yield* alice(h.runs.wait(c.run_id, 30))
      expect(fa.status).toBe("failed")
      expect(fa.error).toContain("tool crashed")
      expect(fa.error).not.toContain("abcdef0123456789abcdef")
      expect(fb.status).toBe("cancelled")
      expect(fc.status).toBe("interrupted")
      expect(fc.profile).toBe("coder")
      expect(fc.error).toBe("The gateway restarted before this run settled.")
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("an approval becomes an inbox row, shows as awaiting_approval, and does not end a wait", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "clean the build" }))
      const hid = [...h.hermes.runs.keys()][0]!
      const waiting = yield* alice(h.runs.wait(view.run_id, 30)).pipe(Effect.fork)
      yield* h.hermes.emit(hid, "approval.request", {
        command: "rm -rf ./build", description: "delete build output", request_id: "a".repeat(32), choices: ["once", "deny"]
      })
      const awaiting = yield* eventually(alice(h.runs.status(view.run_id, 0)), statusIs("waiting_for_approval"), "approval")
      expect(awaiting.awaiting_approval).toEqual({ approval_id: "apr_1", command: "rm -rf ./build", description: "delete build output", since: new Date(0).toISOString() })
      // `pending` says what the run waits on, so the calling agent can tell its user; it is not
      // the caller's to answer.
      expect(awaiting.pending).toEqual({
        request_id: "apr_1", kind: "approval", command: "rm -rf ./build", description: "delete build output",
        since: new Date(0).toISOString()
      })
      const listed = (yield* alice(h.runs.list({ limit: 5 }))).runs[0]!
      expect(listed.pending).toEqual(awaiting.pending)
      const answered = yield* failure(alice(h.runs.answer(view.run_id, "apr_1", "once")))
      expect(errorCode(answered)).toBe("bridge.no_pending_request")
      expect(answered.message).toContain("operator")
      const row = [...h.inbox.rows.values()][0]!
      expect(row).toMatchObject({ state: "pending", run_id: view.run_id, client: "alice", hermes_run_id: hid, request_id: "a".repeat(32) })
      // The wait is still going: an approval does not end it.
      expect(Option.isNone(yield* Fiber.poll(waiting))).toBe(true)

      yield* h.inbox.shape.decide("apr_1", { approve: true, by: "admin" })
      const resumed = yield* eventually(alice(h.runs.status(view.run_id, 0)), statusIs("running"), "resume")
      expect(resumed.awaiting_approval).toBeUndefined()
      expect([...h.inbox.rows.values()][0]!.state).toBe("approved")

      yield* h.hermes.complete(hid, "done")
      const ended = yield* Fiber.join(waiting)
      expect(ended.status).toBe("completed")
      expect(ended.timed_out).toBe(false)
      expect(ended.events_tail.map((e) => e.type)).toEqual(["run.started", "approval.request", "approval.responded", "run.completed"])
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("an approval Hermes resolves otherwise (timeout, stop, run end) closes as expired", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const one = yield* alice(h.runs.start({ agent: "hermes", input: "one" }))
      const two = yield* alice(h.runs.start({ agent: "hermes", input: "two" }))
      const three = yield* alice(h.runs.start({ agent: "hermes", input: "three" }))
      const [h1, h2, h3] = [...h.hermes.runs.keys()]
      for (const [hid, req] of [[h1!, "1"], [h2!, "2"], [h3!, "3"]] as const) {
        yield* h.hermes.emit(hid, "approval.request", { command: "x", description: "y", request_id: req.repeat(32), choices: ["once", "deny"] })
      }
      for (const v of [one, two, three]) yield* eventually(alice(h.runs.status(v.run_id, 0)), statusIs("waiting_for_approval"), "approval")
      // Hermes's approval timeout denies it.
      yield* h.hermes.emit(h1!, "approval.responded", { choice: "deny", resolved: 1, request_id: "1".repeat(32) })
      // A stop denies it.
      yield* alice(h.runs.stop(two.run_id))
      // The run ends while the row is open.
      yield* h.hermes.complete(h3!, "ended")
      const stateOf = (req: string) => [...h.inbox.rows.values()].find((r) => r.request_id === req.repeat(32))?.state
      yield* eventually(Effect.sync(() => ["1", "2", "3"].map(stateOf)), (s) => s.every((x) => x === "expired"), "expiry")
      expect((yield* alice(h.runs.status(one.run_id, 0))).status).toBe("running")
      expect((yield* alice(h.runs.wait(two.run_id, 30))).status).toBe("cancelled")
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a wait that returns a run's end finds the run's approval closed in the inbox, however slow the inbox is", () =>
    Effect.gen(function* () {
      const hermes = yield* makeFakeHermes()
      const inbox = yield* InboxTest(hermes.shape)
      // The inbox answers its expiry 200 ms late (a busy database): the waiter must not be woken before it.
      const slowInbox = {
        ...inbox,
        layer: Layer.succeed(Inbox, {
          ...inbox.shape,
          expireRunApprovals: (runId: string, requestId?: string) =>
            Effect.zipRight(Effect.sleep("200 millis"), inbox.shape.expireRunApprovals(runId, requestId))
        })
      }
      const scope = yield* Scope.make()
      yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
      const h = yield* buildRuns(hermes, slowInbox, {}, scope)
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "clean the build" }))
      const hid = [...hermes.runs.keys()][0]!
      yield* hermes.emit(hid, "approval.request", { command: "x", description: "y", request_id: "a".repeat(32), choices: ["once", "deny"] })
      yield* eventually(alice(h.runs.status(view.run_id, 0)), statusIs("waiting_for_approval"), "approval")
      const waiting = yield* alice(h.runs.wait(view.run_id, 30)).pipe(Effect.fork)
      yield* hermes.complete(hid, "ended")
      expect((yield* Fiber.join(waiting)).status).toBe("completed")
      expect([...inbox.rows.values()].map((r) => r.state)).toEqual(["expired"])
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a clarification ends a wait; agent_run_answer forwards it and the run resumes", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "deploy" }))
      const hid = [...h.hermes.runs.keys()][0]!
      yield* h.hermes.emit(hid, "clarify.request", { clarify_id: "c1", question: "Which environment?", choices: ["staging", "production"], multi_select: false })
      const asked = yield* alice(h.runs.wait(view.run_id, 30))
      expect(asked.timed_out).toBe(false)
      expect(asked.status).toBe("waiting_for_clarification")
      expect(asked.pending).toEqual({ request_id: "c1", kind: "clarification", question: "Which environment?", choices: ["staging", "production"], multi_select: false })

      expect((yield* failure(alice(h.runs.answer(view.run_id, "c0", "staging"))))._tag).toBe("NoPendingRequest")
      const answered = yield* alice(h.runs.answer(view.run_id, "c1", "staging"))
      expect(answered.status).toBe("running")
      expect(answered.pending).toBeNull()
      expect(h.hermes.calls.clarify).toEqual(["staging"])
      // Answering again: nothing is pending any more.
      expect((yield* failure(alice(h.runs.answer(view.run_id, "c1", "staging"))))._tag).toBe("NoPendingRequest")

      yield* h.hermes.complete(hid, "deployed to staging")
      const done = yield* alice(h.runs.wait(view.run_id, 30))
      // Hermes's clarify.responded echo is not recorded twice.
      expect(done.events_tail.filter((e) => e.type === "clarify.answered").length).toBe(1)
      expect(done.events_tail.find((e) => e.type === "clarify.answered")?.data).toMatchObject({ request_id: "c1", answer: "staging" })
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("steer only while running; stop answers stopping, then the run ends cancelled; stop on a finished run changes nothing", () =>
    Effect.gen(function* () {
      const h = yield* harness({ stopEnds: false })
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "long task" }))
      const hid = [...h.hermes.runs.keys()][0]!
      const steered = yield* alice(h.runs.steer(view.run_id, "also add tests"))
      expect(steered.status).toBe("running")
      expect(h.hermes.calls.steer).toEqual(["also add tests"])
      yield* eventually(alice(h.runs.events(view.run_id, 0, 100)), (p) => p.events.some((e) => e.type === "run.steered"), "steered event")

      yield* h.hermes.emit(hid, "clarify.request", { clarify_id: "c9", question: "?", choices: null, multi_select: false })
      yield* eventually(alice(h.runs.status(view.run_id, 0)), statusIs("waiting_for_clarification"), "clarify")
      expect((yield* failure(alice(h.runs.steer(view.run_id, "more"))))._tag).toBe("RunNotRunning")

      const stopping = yield* alice(h.runs.stop(view.run_id))
      expect(stopping.status).toBe("stopping")
      expect(h.hermes.calls.stop).toEqual([hid])
      expect((yield* failure(alice(h.runs.steer(view.run_id, "more"))))._tag).toBe("RunNotRunning")
      // Deltas racing the stop do not undo `stopping`.
      yield* h.hermes.deltas(hid, ["late text"])
      yield* eventually(alice(h.runs.status(view.run_id, 0)), (v) => v.output === "late text", "late delta")
      expect((yield* alice(h.runs.status(view.run_id, 0))).status).toBe("stopping")

      yield* h.hermes.emit(hid, "run.cancelled")
      const ended = yield* alice(h.runs.wait(view.run_id, 30))
      expect(ended.status).toBe("cancelled")
      expect(ended.pending).toBeNull()
      const again = yield* alice(h.runs.stop(view.run_id))
      expect(again).toEqual(yield* alice(h.runs.status(view.run_id, 0)))
      expect(h.hermes.calls.stop).toEqual([hid])
      expect((yield* failure(alice(h.runs.steer(view.run_id, "more"))))._tag).toBe("RunNotRunning")
    }).pipe(Effect.scoped, Effect.provide(TestDb)))
})
