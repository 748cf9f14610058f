/**
 * Time, on the TestClock: waits time out (at most WAIT_MAX_SECONDS), report progress at least every 10 s and on
 * each new event, return at once for a pending clarification; retention deletes ended runs (and
 * frees their idempotency keys) after run_retention_days, never a live one.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Fiber, Option, TestClock } from "effect"
import { Caller } from "../../src/request/Caller.ts"
import { Progress } from "../../src/request/Progress.ts"
import { TestDb } from "../support/testDb.ts"
import { as, eventuallyUnderTestClock, failure, harness } from "./support/harness.ts"
import { WAIT_MAX_SECONDS } from "../../src/domain/limits.ts"

const alice = as("alice")

/** A Progress that records what it was told. */
const recorder = () => {
  const reports: Array<{ readonly progress: number; readonly message: string | undefined }> = []
  const layer = { enabled: true, report: (progress: number, message?: string) => Effect.sync(() => { reports.push({ progress, message }) }) }
  return { reports, withProgress: <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.provideService(e, Progress, layer) }
}

/** Moves the test clock in small steps so the follower's flush timer and the waiters get to run. */
const advance = (ms: number, step = 50) =>
  Effect.gen(function* () {
    for (let t = 0; t < ms; t += step) {
      yield* TestClock.adjust(Math.min(step, ms - t))
      yield* Effect.yieldNow()
      // The database answers on the event loop (PostgreSQL a round trip later), not on the test clock.
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 2)))
    }
  })

describe("waits on the clock", () => {
  it.scoped("times out with timed_out, heartbeats at least every 10 s, and reports each new event", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "slow" }))
      const hid = [...h.hermes.runs.keys()][0]!
      const rec = recorder()
      const waiting = yield* Effect.fork(rec.withProgress(Effect.provideService(h.runs.wait(view.run_id, 120), Caller, Caller.client("alice"))))
      yield* advance(200)
      const beforeEvent = rec.reports.length
      yield* h.hermes.emit(hid, "tool.started", { tool: "terminal", preview: null })
      yield* advance(200)
      const onEvent = yield* eventuallyUnderTestClock(
        Effect.sync(() => rec.reports.slice(beforeEvent).find((r) => r.message?.includes("2 events"))),
        (r) => r !== undefined,
        "the event's report"
      )
      expect(onEvent).toBeDefined()

      yield* advance(118_000, 1000)
      expect(Option.isNone(yield* Fiber.poll(waiting))).toBe(true)
      yield* advance(3_000, 1000)
      const result = yield* Fiber.join(waiting)
      expect(result.timed_out).toBe(true)
      expect(result.status).toBe("running")
      expect(result.events_tail.map((e) => e.type)).toEqual(["run.started", "tool.started"])
      // Heartbeats: ≥ 11 in 120 s besides the event reports, and strictly increasing progress is the edge's job.
      expect(rec.reports.length).toBeGreaterThanOrEqual(12)
    }).pipe(Effect.provide(TestDb)))

  it.scoped(`waits at most ${WAIT_MAX_SECONDS} s; 0 returns at once; a pending clarification returns at once, not timed out`, () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "x" }))
      const hid = [...h.hermes.runs.keys()][0]!
      const immediate = yield* alice(h.runs.wait(view.run_id, 0))
      expect(immediate.timed_out).toBe(true)

      const long = yield* Effect.fork(alice(h.runs.wait(view.run_id, 10_000)))
      yield* advance((WAIT_MAX_SECONDS - 1) * 1000, 10_000)
      expect(Option.isNone(yield* Fiber.poll(long))).toBe(true)
      yield* advance(2_000, 500)
      // The wait arms its timer after reading the run (on PostgreSQL a round trip after the fork,
      // while the clock may already have moved): it ends within a few more seconds of clock.
      const ended = yield* eventuallyUnderTestClock(
        Fiber.poll(long).pipe(Effect.tap((o) => (Option.isNone(o) ? TestClock.adjust("500 millis") : Effect.void))),
        Option.isSome,
        "the capped wait's end"
      )
      expect(Option.isSome(ended)).toBe(true)
      expect((yield* Fiber.join(long)).timed_out).toBe(true)

      yield* h.hermes.emit(hid, "clarify.request", { clarify_id: "c", question: "?", choices: null, multi_select: false })
      // The question is stored before the wait is asked (else the wait would sit on a clock that stands still).
      yield* eventuallyUnderTestClock(
        alice(h.runs.status(view.run_id, 0)).pipe(Effect.tap((v) => (v.pending ? Effect.void : TestClock.adjust("50 millis")))),
        (v) => v.pending !== null && v.pending !== undefined,
        "the pending clarification"
      )
      const asked = yield* alice(h.runs.wait(view.run_id, 120))
      expect(asked.timed_out).toBe(false)
      expect(asked.pending?.request_id).toBe("c")
    }).pipe(Effect.provide(TestDb)))
})

describe("retention", () => {
  it.scoped("deletes ended runs with their events after run_retention_days, and frees their keys", () =>
    Effect.gen(function* () {
      // A live run stays quiet for days of test clock here: one quiet check an hour, not 17,280.
      const h = yield* harness({ retentionDays: 2, quietCheckMs: 3_600_000 })
      const ended = yield* alice(h.runs.start({ agent: "hermes", input: "done soon", idempotency_key: "k" }))
      const live = yield* alice(h.runs.start({ agent: "hermes", input: "runs on" }))
      const [hEnded] = [...h.hermes.runs.keys()]
      yield* h.hermes.complete(hEnded!, "result")
      // The end reaches the ledger through the follower's flush (on the clock) and the database (on
      // the event loop, a round trip on PostgreSQL): a fixed few steps were once not enough under load.
      const done = yield* eventuallyUnderTestClock(
        alice(h.runs.status(ended.run_id, 0)).pipe(Effect.tap((v) => (v.status === "completed" ? Effect.void : TestClock.adjust("50 millis")))),
        (v) => v.status === "completed",
        "the ended run's completion"
      )
      expect(done.status).toBe("completed")

      // One day later: still kept.
      yield* TestClock.adjust("1 day")
      yield* Effect.yieldNow()
      expect((yield* alice(h.runs.status(ended.run_id, 0))).output).toBe("result")
      // Past two days since it ended: gone, events and all; the live run stays.
      yield* TestClock.adjust("1 day")
      yield* TestClock.adjust("2 hours")
      yield* Effect.yieldNow()
      // The sweep's next turn is set from the clock once the previous one finished its I/O; a step
      // taken before that lands after it, so the clock goes on in small steps (still past two days).
      const swept = yield* eventuallyUnderTestClock(
        Effect.either(alice(h.runs.status(ended.run_id, 0))).pipe(Effect.tap((r) => (Either.isLeft(r) ? Effect.void : TestClock.adjust("10 minutes")))),
        Either.isLeft,
        "the sweep"
      )
      expect(Either.isLeft(swept) && swept.left._tag).toBe("RunNotFound")
      expect((yield* failure(alice(h.runs.events(ended.run_id, 0, 10))))._tag).toBe("RunNotFound")
      expect((yield* alice(h.runs.status(live.run_id, 0))).status).toBe("running")
      expect((yield* alice(h.runs.list({ limit: 10 }))).runs.map((r) => r.run_id)).toEqual([live.run_id])
      // The key went with the run: the same key now starts a new run.
      const again = yield* alice(h.runs.start({ agent: "hermes", input: "done soon", idempotency_key: "k" }))
      expect(again.run_id).not.toBe(ended.run_id)
    }).pipe(Effect.provide(TestDb)))
})
