/**
 * The follow's reconnect backoff (hermes/client/follow.ts): it waits as the profile's schedule says
 * between failed opens of the events route, and an event delivered starts the schedule afresh, so
 * a stream that drops once after hours of health reconnects at the first delay, not the last. The
 * schedule's state exists only from a failure on (a parked run on a healthy stream holds none).
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Schedule, TestClock } from "effect"
import { type FollowDeps, followRunInto } from "../../src/hermes/client/follow.ts"
import { type HermesFailure, HermesTransport } from "../../src/hermes/client/failure.ts"
import type { HermesEvent } from "../../src/hermes/client/HermesClient.ts"
import { makeEvent } from "../../src/domain/runs/hermesEvents.ts"

const broke = new HermesTransport({ agent: "hermes", route: "GET /v1/runs/{id}/events", detail: "reset" })

/** Each open of the events route: the events it delivers, then whether it breaks (else it ends the run). */
type Open = { readonly events: ReadonlyArray<HermesEvent>; readonly breaks: boolean }

/** A schedule of the follow's kind: fed failures, answering with them. */
const ofFailures = (schedule: Schedule.Schedule<unknown, HermesFailure>): Schedule.Schedule<HermesFailure, HermesFailure> =>
  Schedule.passthrough(schedule) as Schedule.Schedule<HermesFailure, HermesFailure>

const scripted = (opens: ReadonlyArray<Open>, openedAt: Array<number>, schedule = ofFailures(Schedule.exponential("1 second", 2))): FollowDeps => {
  let n = 0
  return {
    runId: "run_h",
    agent: "hermes",
    status: Effect.die("the status route is not asked in this script"),
    schedule,
    readEvents: (_lastId, onEvent) =>
      Effect.gen(function* () {
        openedAt.push(yield* TestClock.currentTimeMillis)
        const open = opens[n++]
        if (open === undefined) return yield* Effect.die("opened more often than scripted")
        for (const e of open.events) yield* onEvent(e)
        if (open.breaks) return yield* Effect.fail(broke)
      })
  }
}

const settings = { lastEventId: null, receivedText: "", pollInterval: Duration.seconds(1) }

describe("the follow's reconnect backoff", () => {
  it.effect("grows across failed opens and starts afresh once an event came through", () =>
    Effect.gen(function* () {
      const openedAt: Array<number> = []
      const emitted: Array<string> = []
      const deps = scripted([
        { events: [], breaks: true },
        { events: [], breaks: true },
        { events: [makeEvent(0, { event: "message.delta", delta: "a" })], breaks: true },
        { events: [], breaks: true },
        { events: [makeEvent(1, { event: "run.completed", output: "a" })], breaks: false }
      ], openedAt)
      const fiber = yield* Effect.fork(
        followRunInto(deps, settings, (e) => Effect.sync(() => emitted.push(e.event)))
      )
      for (let i = 0; i < 12; i++) yield* TestClock.adjust("500 millis")
      // 1 s, then 2 s; the event resets: 1 s, then 2 s again (without the reset: 4 s, then 8 s).
      expect(openedAt).toEqual([0, 1000, 3000, 4000, 6000])
      yield* Fiber.join(fiber)
      expect(emitted).toEqual(["message.delta", "run.completed"])
    }))

  it.effect("gives up with the last failure when the schedule does", () =>
    Effect.gen(function* () {
      const openedAt: Array<number> = []
      const threeOpens = [{ events: [], breaks: true }, { events: [], breaks: true }, { events: [], breaks: true }]
      const deps = scripted(threeOpens, openedAt, ofFailures(Schedule.spaced("1 second").pipe(Schedule.compose(Schedule.recurs(2)))))
      const fiber = yield* Effect.fork(Effect.flip(followRunInto(deps, settings, () => Effect.void)))
      for (let i = 0; i < 6; i++) yield* TestClock.adjust("500 millis")
      expect(openedAt).toEqual([0, 1000, 2000])
      expect(yield* Fiber.join(fiber)).toBe(broke)
    }))
})
