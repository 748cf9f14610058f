/** The client's two named backoff policies, on the test clock. */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Option, Schedule, TestClock } from "effect"
import { HermesStatus, HermesTransport } from "../../src/hermes/client/failure.ts"
import { followReconnectSchedule, hermesRetrySchedule, hermesStartRetrySchedule } from "../../src/hermes/client/schedules.ts"

const site = { agent: "hermes", route: "GET /v1/models" }
const busy = (seconds: number) => new HermesStatus({ ...site, status: 429, code: "rate_limit_exceeded", detail: null, retryAfter: Option.some(Duration.seconds(seconds)) })

describe("hermesRetrySchedule", () => {
  const busy = (seconds: number) => new HermesStatus({ ...site, status: 429, code: "rate_limit_exceeded", detail: null, retryAfter: Option.some(Duration.seconds(seconds)) })

  it.effect("waits at least Retry-After before repeating", () =>
    Effect.gen(function* () {
      let attempts = 0
      const call = Effect.suspend(() => (++attempts === 1 ? Effect.fail(busy(2)) : Effect.succeed("ok")))
      const fiber = yield* Effect.fork(Effect.retry(call, hermesRetrySchedule))
      yield* TestClock.adjust("1900 millis")
      expect(attempts).toBe(1)
      yield* TestClock.adjust("200 millis")
      expect(yield* Fiber.join(fiber)).toBe("ok")
      expect(attempts).toBe(2)
    }))

  it.effect("gives up after three repeats, and never repeats a permanent failure", () =>
    Effect.gen(function* () {
      let attempts = 0
      const transient = Effect.suspend(() => { attempts++; return Effect.fail(busy(0)) })
      const fiber = yield* Effect.fork(Effect.retry(transient, hermesRetrySchedule))
      yield* TestClock.adjust("1 minute")
      expect((yield* Fiber.await(fiber))._tag).toBe("Failure")
      expect(attempts).toBe(4)
      let refused = 0
      const permanent = Effect.suspend(() => { refused++; return Effect.fail(new HermesStatus({ ...site, status: 401, code: null, detail: null, retryAfter: Option.none() })) })
      yield* Effect.flip(Effect.retry(permanent, hermesRetrySchedule))
      expect(refused).toBe(1)
    }))
})

describe("hermesStartRetrySchedule", () => {
  it.effect("a start Hermes did not admit (429, 503 gateway_draining) is not repeated: the queue holds it; a 502 is", () =>
    Effect.gen(function* () {
      for (const notAdmitted of [busy(1), new HermesStatus({ ...site, status: 503, code: "gateway_draining", detail: null, retryAfter: Option.some(Duration.seconds(1)) })]) {
        let attempts = 0
        yield* Effect.flip(Effect.retry(Effect.suspend(() => { attempts++; return Effect.fail(notAdmitted) }), hermesStartRetrySchedule))
        expect(attempts).toBe(1)
      }
      let attempts = 0
      const flaky = Effect.suspend(() => (++attempts === 1 ? Effect.fail(new HermesStatus({ ...site, status: 502, code: null, detail: null, retryAfter: Option.none() })) : Effect.succeed("ok")))
      const fiber = yield* Effect.fork(Effect.retry(flaky, hermesStartRetrySchedule))
      yield* TestClock.adjust("1 minute")
      expect(yield* Fiber.join(fiber)).toBe("ok")
      expect(attempts).toBe(2)
    }))
})

describe("followReconnectSchedule", () => {
  it.effect("backs off exponentially from ~100 ms up to ~5 s between attempts, and never gives up by itself", () =>
    Effect.gen(function* () {
      const failure = new HermesTransport({ ...site, detail: "ECONNREFUSED" })
      const delays = yield* Schedule.run(Schedule.delays(followReconnectSchedule), 0, Array.from({ length: 30 }, () => failure))
      const ms = Array.from(delays, Duration.toMillis)
      expect(ms).toHaveLength(30)
      expect(ms[0]).toBeLessThanOrEqual(120)
      expect(ms[3]).toBeGreaterThan(ms[0] ?? 0)
      for (const d of ms) expect(d).toBeLessThanOrEqual(6000)
      for (const d of ms.slice(-10)) expect(d).toBeGreaterThanOrEqual(4000)
    }))

  it.effect("honours a Retry-After longer than its own delay", () =>
    Effect.gen(function* () {
      const driver = yield* Schedule.driver(followReconnectSchedule)
      const step = yield* Effect.fork(driver.next(busy(3)))
      yield* TestClock.adjust("2900 millis")
      expect(step.unsafePoll()).toBeNull()
      yield* TestClock.adjust("200 millis")
      yield* Fiber.join(step)
    }))
})
