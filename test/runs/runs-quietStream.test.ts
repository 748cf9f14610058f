/**
 * A followed stream that stays open on keepalives after Hermes ended the run (an older Hermes
 * re-attached to a dead subscriber's queue, docs/RELIABILITY.md "restart"), on the TestClock: on a
 * re-attached stream of a build that does not number its frames, the follower checks Hermes's
 * status right after the re-attach and once the stream carried no event for
 * `hermes.quiet_check_ms` (10 s here, the default), and settles the run from it: nothing stays live
 * in the bridge, the client's slot is free, no event twice. A run's first stream, and a stream
 * whose frames are numbered, are never checked. A stop Hermes answers "no live task" settles the
 * run the same way, with a log line.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, HashMap, List, Logger, Scope, TestClock } from "effect"
import { GONE_ERROR } from "../../src/hermes/client/follow.ts"
import { Caller } from "../../src/request/Caller.ts"
import { TestDb } from "../support/testDb.ts"
import { as, buildRuns, eventuallyUnderTestClock as eventually, harness } from "./support/harness.ts"

const alice = as("alice")
const admin = as(Caller.admin)

/**
 * Moves the test clock in steps so the follower's fibers and the database calls get to run. The
 * database answers on the event loop, not on the test clock, so what a step sets off is read back
 * with `eventually` (below), and the pause only keeps the steps from outrunning it.
 */
const advance = (ms: number, step = 500) =>
  Effect.gen(function* () {
    for (let t = 0; t < ms; t += step) {
      yield* TestClock.adjust(Math.min(step, ms - t))
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow()
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 2)))
    }
  })

type Harness = Effect.Effect.Success<ReturnType<typeof harness>>

/** A run whose approval is pending in the bridge, and its Hermes id. */
const quietRun = (h: Harness, input: string) =>
  Effect.gen(function* () {
    const view = yield* alice(h.runs.start({ agent: "hermes", input }))
    const hid = [...h.hermes.runs.values()].find((r) => r.request.input === input)!.id
    yield* h.hermes.emit(hid, "approval.request", { request_id: "a".repeat(32), command: "rm -rf ./build", description: "clean", choices: ["once", "deny"] })
    yield* advance(500)
    yield* eventually(alice(h.runs.status(view.run_id, 0)), (v) => v.status === "waiting_for_approval", "the pending approval")
    return { runId: view.run_id, hid }
  })

const capture = () => {
  const lines: Array<{ readonly level: string; readonly message: string; readonly annotations: Record<string, unknown> }> = []
  const logger = Logger.make(({ annotations, logLevel, message }) => {
    const text = List.isList(message) ? List.toArray(message as List.List<unknown>).join(" ") : Array.isArray(message) ? message.join(" ") : String(message)
    lines.push({ level: logLevel.label, message: text, annotations: Object.fromEntries(HashMap.toEntries(annotations)) })
  })
  return { lines, layer: Logger.add(logger) }
}

/** The bridge restarts over the same database (a daemon restart): the run's follow is a re-attach. */
const restarted = (h: Harness) =>
  Effect.gen(function* () {
    yield* Scope.close(h.scope, Exit.void)
    const next = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(next, Exit.void))
    return yield* buildRuns(h.hermes, h.inbox, h.options, next)
  })

describe("a run's first stream is trusted: no status read while it stays open", () => {
  it.scoped("a run parked on its first stream for ten quiet intervals costs no status read; it ends on its own event, once", () =>
    Effect.gen(function* () {
      const h = yield* harness({ unnumbered: true })
      const { runId, hid } = yield* quietRun(h, "long tool call")
      yield* advance(100_000, 1000)
      expect(h.hermes.calls.status).toBe(0)
      expect((yield* alice(h.runs.status(runId, 0))).status).toBe("waiting_for_approval")
      expect(yield* h.supervisor.isFollowed(runId)).toBe(true)
      yield* h.hermes.emit(hid, "approval.responded", { choice: "once", resolved: 1, request_id: "a".repeat(32) })
      yield* h.hermes.deltas(hid, ["ok"])
      yield* h.hermes.complete(hid)
      yield* advance(1_000, 100)
      const done = yield* eventually(alice(h.runs.status(runId, 0)), (v) => v.status === "completed", "completion")
      expect([done.status, done.output]).toEqual(["completed", "ok"])
      const page = yield* alice(h.runs.events(runId, 0, 100))
      expect(page.events.filter((e) => e.type === "run.completed")).toHaveLength(1)
    }).pipe(Effect.provide(TestDb)))

  it.scoped("a re-attached stream whose frames are numbered (the 0.22 line) is not checked either", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const { runId } = yield* quietRun(h, "numbered")
      const again = yield* restarted(h)
      yield* advance(1_000, 100)
      // The restart's one resync read, and nothing after it.
      const afterResync = h.hermes.calls.status
      yield* advance(60_000, 1000)
      expect(h.hermes.calls.status).toBe(afterResync)
      expect((yield* alice(again.runs.status(runId, 0))).status).toBe("waiting_for_approval")
    }).pipe(Effect.provide(TestDb)))
})

describe("a re-attached stream of a build that does not number its frames is checked against Hermes's status", () => {
  it.scoped("Hermes ended the run without a word on the stream: settled within two quiet intervals, slot freed, approval expired", () =>
    Effect.gen(function* () {
      const h = yield* harness({ unnumbered: true })
      const { runId, hid } = yield* quietRun(h, "quiet")
      const again = yield* restarted(h)
      yield* advance(1_000, 100)
      // The operator's answer and the rest of the run went to a dead subscriber: Hermes finished.
      yield* h.hermes.finishQuietly(hid, "all done")
      yield* advance(5_000)
      // Not yet: the stream was checked at the re-attach, less than an interval ago.
      expect((yield* alice(again.runs.status(runId, 0))).status).toBe("waiting_for_approval")
      yield* advance(16_000)
      const done = yield* eventually(alice(again.runs.status(runId, 0)), (v) => v.status === "completed", "completion")
      expect([done.status, done.output]).toEqual(["completed", "all done"])
      yield* eventually(again.supervisor.isFollowed(runId), (followed) => !followed, "the follower's end")
      expect([...h.inbox.rows.values()].map((r) => r.state)).toEqual(["expired"])
      const page = yield* alice(again.runs.events(runId, 0, 100))
      expect(page.events.filter((e) => e.type === "run.completed")).toHaveLength(1)
      // The harness's cap is 3: all three slots are alice's again.
      for (let i = 0; i < 3; i++) yield* alice(again.runs.start({ agent: "hermes", input: `after ${i}` }))
    }).pipe(Effect.provide(TestDb)))

  it.scoped("events keep a stream from being checked; once they stop, the run Hermes ended is settled", () =>
    Effect.gen(function* () {
      const h = yield* harness({ unnumbered: true })
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "chatty" }))
      const hid = [...h.hermes.runs.keys()][0]!
      yield* h.hermes.emit(hid, "tool.started", { tool: "terminal", preview: null })
      yield* advance(500)
      const again = yield* restarted(h)
      yield* advance(1_000, 100)
      // Hermes says completed, but the stream still carries events every 5 s: no check is due.
      yield* h.hermes.finishQuietly(hid, "tick tick tick tick tick tick ")
      for (let i = 0; i < 6; i++) {
        yield* h.hermes.emit(hid, "tool.started", { tool: "terminal", preview: null })
        yield* advance(5_000)
      }
      expect((yield* alice(again.runs.status(view.run_id, 0))).status).toBe("running")
      yield* advance(21_000)
      const done = yield* eventually(alice(again.runs.status(view.run_id, 0)), (v) => v.status === "completed", "completion")
      expect([done.status, done.output]).toEqual(["completed", "tick tick tick tick tick tick "])
    }).pipe(Effect.provide(TestDb)))

  it.scoped("a run Hermes no longer knows ends interrupted at the next quiet check", () =>
    Effect.gen(function* () {
      const h = yield* harness({ unnumbered: true })
      const { runId, hid } = yield* quietRun(h, "forgotten")
      const again = yield* restarted(h)
      yield* advance(1_000, 100)
      yield* h.hermes.forget(hid)
      yield* advance(21_000)
      const ended = yield* eventually(alice(again.runs.status(runId, 0)), (v) => v.status === "interrupted", "the interruption")
      expect([ended.status, ended.error]).toEqual(["interrupted", GONE_ERROR])
    }).pipe(Effect.provide(TestDb)))

  it.scoped("right after a re-attach: a run Hermes finished while the bridge was down is settled at once, not after an interval", () =>
    Effect.gen(function* () {
      const h = yield* harness({ unnumbered: true })
      const { runId, hid } = yield* quietRun(h, "finished while down")
      yield* Scope.close(h.scope, Exit.void)
      yield* h.hermes.finishQuietly(hid, "finished meanwhile")
      const next = yield* Scope.make()
      yield* Effect.addFinalizer(() => Scope.close(next, Exit.void))
      const again = yield* buildRuns(h.hermes, h.inbox, h.options, next)
      yield* advance(1_000, 100)
      const done = yield* eventually(alice(again.runs.status(runId, 0)), (v) => v.status === "completed", "completion")
      expect([done.status, done.output]).toEqual(["completed", "finished meanwhile"])
    }).pipe(Effect.provide(TestDb)))
})

describe("a stop Hermes answers \"no live task\"", () => {
  it.scoped("settles the run from Hermes's status, says so in the log, and frees the slot", () => {
    const log = capture()
    return Effect.gen(function* () {
      const h = yield* harness()
      const { runId, hid } = yield* quietRun(h, "stop me")
      yield* h.hermes.finishQuietly(hid, "ended before the stop")
      const stopped = yield* alice(h.runs.stop(runId))
      expect([stopped.status, stopped.output]).toEqual(["completed", "ended before the stop"])
      expect(h.hermes.calls.stop).toEqual([hid])
      const line = log.lines.find((l) => l.message.startsWith("stop: Hermes has no live task"))
      expect(line?.annotations).toMatchObject({ run_id: runId, status: "completed" })
      yield* advance(500)
      yield* eventually(h.supervisor.isFollowed(runId), (followed) => !followed, "the follower's end")
      for (let i = 0; i < 3; i++) yield* alice(h.runs.start({ agent: "hermes", input: `after ${i}` }))
    }).pipe(Effect.provide(TestDb), Effect.provide(log.layer))
  })

  it.scoped("a run cancelled in Hermes by someone else is settled cancelled without this stop's record, which it withdraws", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const { runId, hid } = yield* quietRun(h, "cancelled elsewhere")
      yield* h.hermes.finishQuietly(hid, "", "cancelled")
      const stopped = yield* admin(h.runs.stop(runId, { by: "operator", via: "page" }))
      expect(stopped.status).toBe("cancelled")
      const types = (yield* admin(h.runs.events(runId, 0, 100))).events.map((e) => e.type)
      expect(types, JSON.stringify(types)).not.toContain("run.stopping")
      expect(types.at(-1)).toBe("run.cancelled")
    }).pipe(Effect.provide(TestDb)))

  it.scoped("a run Hermes forgot ends interrupted on the stop", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const { runId, hid } = yield* quietRun(h, "stop a forgotten one")
      yield* h.hermes.forget(hid)
      const stopped = yield* alice(h.runs.stop(runId))
      expect([stopped.status, stopped.error]).toEqual(["interrupted", GONE_ERROR])
    }).pipe(Effect.provide(TestDb)))
})
