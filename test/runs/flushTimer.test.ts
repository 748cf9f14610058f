/**
 * The flush timer shared by a follower's runs (TestClock): each deadline wakes once, one interval
 * after it was asked for, in order; a cancelled one never wakes; one sleeping fiber serves them all,
 * and none is left once no deadline is. A sleep that ends early neither fires a deadline early nor
 * misses it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, TestClock } from "effect"
import { makeFlushTimer } from "../../src/services/runs/flushTimer.ts"

describe("makeFlushTimer", () => {
  it.effect("wakes each deadline once, one interval after it was asked for, in order, from one sleep at a time", () =>
    Effect.gen(function* () {
      const timer = makeFlushTimer("50 millis")
      const clock = yield* Effect.clock
      const woken: Array<[string, number]> = []
      const ask = (name: string) => timer.after(() => { woken.push([name, clock.unsafeCurrentTimeMillis()]) })
      const a = yield* ask("a")
      yield* TestClock.adjust("10 millis")
      const b = yield* ask("b")
      yield* TestClock.adjust("10 millis")
      yield* ask("c")
      // One fiber sleeps for all three: until the first deadline.
      expect((yield* TestClock.sleeps()).length).toBe(1)
      yield* TestClock.adjust("29 millis") // 49 ms
      expect(woken).toEqual([])
      expect(a.due).toBe(false)
      yield* TestClock.adjust("1 millis") // 50 ms
      expect(woken.map(([n]) => n)).toEqual(["a"])
      expect(a.due).toBe(true)
      expect(b.due).toBe(false)
      yield* TestClock.adjust("20 millis") // 70 ms
      expect(woken).toEqual([["a", 50], ["b", 60], ["c", 70]])
      // Nothing left to wait for: no fiber sleeps, and the spent deadlines stay spent.
      expect((yield* TestClock.sleeps()).length).toBe(0)
      yield* TestClock.adjust("1 second")
      expect(woken.length).toBe(3)
    }))

  it.effect("a cancelled deadline never wakes, and a deadline asked for after the fiber ended starts another", () =>
    Effect.gen(function* () {
      const timer = makeFlushTimer("50 millis")
      const woken: Array<string> = []
      const first = yield* timer.after(() => { woken.push("first") })
      first.cancel()
      yield* TestClock.adjust("60 millis")
      expect(woken).toEqual([])
      expect(first.due).toBe(false)
      expect((yield* TestClock.sleeps()).length).toBe(0)
      const second = yield* timer.after(() => { woken.push("second") })
      yield* TestClock.adjust("50 millis")
      expect(woken).toEqual(["second"])
      expect(second.due).toBe(true)
    }))

  it.effect("a sleep that ends a millisecond early fires the deadline at its time, not before and not never", () =>
    Effect.gen(function* () {
      // A clock whose sleeps end a millisecond before their time (never sooner than 1 ms), as a
      // Node timer may end before `Date.now` reads its end; time itself is the TestClock's.
      const test = yield* Effect.clock
      const early: Clock.Clock = {
        ...test,
        sleep: (d) => test.sleep(Duration.millis(Math.max(1, Duration.toMillis(d) - 1)))
      }
      const timer = makeFlushTimer("50 millis")
      const woken: Array<number> = []
      yield* Effect.withClock(timer.after(() => { woken.push(test.unsafeCurrentTimeMillis()) }), early)
      yield* TestClock.adjust("49 millis")
      expect(woken).toEqual([])
      yield* TestClock.adjust("1 millis")
      expect(woken).toEqual([50])
    }))
})
