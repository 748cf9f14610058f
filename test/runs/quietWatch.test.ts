/**
 * The quiet watch alone, on the TestClock: it asks only once the stream carried no event for a
 * whole interval, then every interval; at once on a re-attach; never ends the follow when an event
 * came while Hermes was being asked; `halt` ends it at once.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Option, TestClock } from "effect"
import { type QuietWatch, watchQuiet } from "../../src/services/runs/quietWatch.ts"

const interval = Duration.seconds(10)

/** A watch whose question is answered by `answer`; `asks` counts the questions (with their time). */
const make = (checkAtOnce: boolean, answer: (watch: () => QuietWatch) => Effect.Effect<boolean>) =>
  Effect.gen(function* () {
    const asks: Array<number> = []
    let self: QuietWatch | null = null
    const watch = yield* watchQuiet({
      interval,
      checkAtOnce,
      ended: Effect.gen(function* () {
        asks.push(yield* TestClock.currentTimeMillis)
        return yield* answer(() => self!)
      })
    })
    self = watch
    const ended = yield* Effect.fork(watch.ended)
    return { watch, asks, ended }
  })

const isDone = <A, E>(f: Fiber.Fiber<A, E>) => Effect.map(Fiber.poll(f), Option.isSome)

describe("quietWatch", () => {
  it.scoped("asks only after a whole quiet interval, then every interval; an event puts it off", () =>
    Effect.gen(function* () {
      let verdict = false
      const { watch, asks, ended } = yield* make(false, () => Effect.sync(() => verdict))
      yield* TestClock.adjust("9 seconds")
      expect(asks).toEqual([])
      yield* TestClock.adjust("1 second")
      expect(asks).toEqual([10_000])
      yield* TestClock.adjust("5 seconds")
      yield* watch.saw
      yield* TestClock.adjust("5 seconds")
      // The tick at 20 s finds an event 5 s old: no question.
      expect(asks).toEqual([10_000])
      yield* TestClock.adjust("10 seconds")
      expect(asks).toEqual([10_000, 30_000])
      expect(yield* isDone(ended)).toBe(false)
      verdict = true
      yield* TestClock.adjust("10 seconds")
      expect(yield* isDone(ended)).toBe(true)
    }))

  it.scoped("a re-attach is asked at once", () =>
    Effect.gen(function* () {
      const { asks, ended } = yield* make(true, () => Effect.succeed(true))
      yield* Effect.yieldNow()
      expect(asks).toEqual([0])
      yield* Fiber.join(ended)
    }))

  it.scoped("an event that comes while Hermes is asked keeps the stream: it may be carrying the end", () =>
    Effect.gen(function* () {
      let eventDuringAsk = true
      const { asks, ended } = yield* make(false, (watch) =>
        Effect.gen(function* () {
          if (eventDuringAsk) yield* watch().saw
          eventDuringAsk = false
          return true
        }))
      yield* TestClock.adjust("10 seconds")
      expect(asks).toEqual([10_000])
      expect(yield* isDone(ended)).toBe(false)
      yield* TestClock.adjust("10 seconds")
      expect(asks).toEqual([10_000, 20_000])
      expect(yield* isDone(ended)).toBe(true)
    }))

  it.scoped("halt ends the watch without asking", () =>
    Effect.gen(function* () {
      const asked = yield* Deferred.make<void>()
      const { watch, asks, ended } = yield* make(false, () => Effect.as(Deferred.succeed(asked, undefined), false))
      yield* watch.halt
      yield* Fiber.join(ended)
      expect(asks).toEqual([])
    }))
})
