/**
 * The quiet watch alone, on the TestClock: a run's first stream is never asked about; a suspect one
 * (a re-attach, from the start or after a drop) is asked at once, then only once the stream carried
 * no event for a whole interval, then every interval; a numbered frame ends the suspicion for good;
 * it never ends the follow when an event came while Hermes was being asked; `halt` ends it at once.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Option, Supervisor, TestClock } from "effect"
import { type QuietWatch, watchQuiet } from "../../src/services/runs/quietWatch.ts"

const interval = Duration.seconds(10)

/** A watch whose question is answered by `answer`; `asks` counts the questions (with their time). */
const make = (reattach: boolean, answer: (watch: () => QuietWatch) => Effect.Effect<boolean>) =>
  Effect.gen(function* () {
    const asks: Array<number> = []
    let self: QuietWatch | null = null
    const watch = yield* watchQuiet({
      interval,
      reattach,
      numbered: false,
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
  it.scoped("a run's first stream is never asked about, however long it stays quiet", () =>
    Effect.gen(function* () {
      const { asks, ended } = yield* make(false, () => Effect.succeed(true))
      yield* TestClock.adjust("1 hour")
      expect(asks).toEqual([])
      expect(yield* isDone(ended)).toBe(false)
    }))

  it.scoped("a suspect stream is asked at once, then only after a whole quiet interval, then every interval; an event puts it off", () =>
    Effect.gen(function* () {
      let verdict = false
      const { watch, asks, ended } = yield* make(true, () => Effect.sync(() => verdict))
      yield* Effect.yieldNow()
      expect(asks).toEqual([0])
      yield* TestClock.adjust("9 seconds")
      expect(asks).toEqual([0])
      yield* TestClock.adjust("1 second")
      expect(asks).toEqual([0, 10_000])
      yield* TestClock.adjust("5 seconds")
      yield* watch.saw(false)
      yield* TestClock.adjust("5 seconds")
      // The tick at 20 s finds an event 5 s old: no question.
      expect(asks).toEqual([0, 10_000])
      yield* TestClock.adjust("10 seconds")
      expect(asks).toEqual([0, 10_000, 30_000])
      expect(yield* isDone(ended)).toBe(false)
      verdict = true
      yield* TestClock.adjust("10 seconds")
      expect(yield* isDone(ended)).toBe(true)
    }))

  it.scoped("a re-attach after a drop makes a first stream suspect: asked at once, then every quiet interval", () =>
    Effect.gen(function* () {
      const { watch, asks } = yield* make(false, () => Effect.succeed(false))
      yield* TestClock.adjust("25 seconds")
      expect(asks).toEqual([])
      yield* watch.reattached
      // The waiting fiber resumes through the scheduler: a few turns.
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow()
      expect(asks).toEqual([25_000])
      yield* TestClock.adjust("20 seconds")
      expect(asks).toEqual([25_000, 35_000, 45_000])
    }))

  it.scoped("a numbered frame ends the suspicion, and a later re-attach does not bring it back", () =>
    Effect.gen(function* () {
      const { watch, asks } = yield* make(true, () => Effect.succeed(false))
      yield* TestClock.adjust("10 seconds")
      expect(asks).toEqual([0, 10_000])
      yield* watch.saw(true)
      yield* TestClock.adjust("1 minute")
      yield* watch.reattached
      yield* TestClock.adjust("1 minute")
      expect(asks).toEqual([0, 10_000])
    }))

  it.scoped("a run whose frames were numbered before is not suspect on a re-attach", () =>
    Effect.gen(function* () {
      const asks: Array<number> = []
      const watch = yield* watchQuiet({ interval, reattach: true, numbered: true, ended: Effect.sync(() => { asks.push(0); return false }) })
      yield* watch.reattached
      yield* TestClock.adjust("1 minute")
      expect(asks).toEqual([])
    }))

  it.scoped("an event that comes while Hermes is asked keeps the stream: it may be carrying the end", () =>
    Effect.gen(function* () {
      let eventDuringAsk = true
      const { asks, ended } = yield* make(true, (watch) =>
        Effect.gen(function* () {
          if (eventDuringAsk) yield* watch().saw(false)
          eventDuringAsk = false
          return true
        }))
      yield* Effect.yieldNow()
      expect(asks).toEqual([0])
      expect(yield* isDone(ended)).toBe(false)
      yield* TestClock.adjust("10 seconds")
      expect(asks).toEqual([0, 10_000])
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

  it.scoped("what whenEnded set runs once when the run ended: on the check that found it, on halt, or at once if it already had", () =>
    Effect.gen(function* () {
      let verdict = false
      const { watch } = yield* make(true, () => Effect.sync(() => verdict))
      let stops = 0
      yield* watch.whenEnded(Effect.sync(() => { stops += 1 }))
      yield* TestClock.adjust("10 seconds")
      expect(stops).toBe(0)
      verdict = true
      yield* TestClock.adjust("10 seconds")
      expect(stops).toBe(1)
      yield* watch.halt // already ended: nothing more
      expect(stops).toBe(1)

      const halted = yield* make(false, () => Effect.succeed(false))
      let halts = 0
      yield* halted.watch.whenEnded(Effect.sync(() => { halts += 1 }))
      yield* halted.watch.halt
      yield* halted.watch.halt
      expect(halts).toBe(1)

      const late = yield* make(false, () => Effect.succeed(false))
      yield* late.watch.halt
      let lateRuns = 0
      yield* late.watch.whenEnded(Effect.sync(() => { lateRuns += 1 }))
      expect(lateRuns).toBe(1)
    }))

  it.scoped("a trusted stream's watch holds no fiber; a suspect one holds one, which ends once a numbered frame trusts it", () =>
    Effect.gen(function* () {
      const supervisor = yield* Supervisor.track
      const live = Effect.map(supervisor.value, (fibers) => fibers.length)
      const watch = yield* watchQuiet({ interval, reattach: false, numbered: false, ended: Effect.succeed(false) }).pipe(Effect.supervised(supervisor))
      yield* TestClock.adjust("1 minute")
      expect(yield* live).toBe(0)
      yield* watch.reattached.pipe(Effect.supervised(supervisor))
      expect(yield* live).toBe(1)
      yield* watch.reattached.pipe(Effect.supervised(supervisor)) // already checking: no second fiber
      expect(yield* live).toBe(1)
      yield* watch.saw(true)
      yield* TestClock.adjust("10 seconds")
      expect(yield* live).toBe(0)
    }))
})
