/**
 * Batching a follower's stream (TestClock): streamed text waits for the short timer, anything urgent
 * goes at once with what is buffered, a full buffer goes at once, and the end or a failure never
 * strands buffered items.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Either, Fiber, Option, Queue, Stream, TestClock } from "effect"
import { type BatchPolicy, batchesOf, consumeInBatches } from "../../src/services/runs/batches.ts"
import { makeFlushTimer } from "../../src/services/runs/flushTimer.ts"

const policy: BatchPolicy<string> = { maxItems: 5, interval: "50 millis", urgent: (s) => s.startsWith("!") }

const collect = <E>(stream: Stream.Stream<string, E>, stopAt?: string) =>
  Effect.gen(function* () {
    const batches: Array<ReadonlyArray<string>> = []
    const fiber = yield* Effect.fork(
      consumeInBatches(stream, policy, (b) => Effect.sync(() => {
        batches.push(b)
        return stopAt !== undefined && b.includes(stopAt)
      }))
    )
    return { batches, fiber }
  })

describe("consumeInBatches", () => {
  it.effect("holds streamed items for the interval, sends urgent ones at once with what is buffered", () =>
    Effect.gen(function* () {
      const q = yield* Queue.unbounded<string>()
      const { batches, fiber } = yield* collect(Stream.fromQueue(q))
      yield* Queue.offerAll(q, ["a", "b"])
      yield* TestClock.adjust("10 millis")
      expect(batches).toEqual([])
      yield* Queue.offer(q, "c")
      yield* TestClock.adjust("45 millis")
      expect(batches).toEqual([["a", "b", "c"]])
      yield* Queue.offer(q, "d")
      yield* Effect.yieldNow()
      yield* Queue.offer(q, "!tool")
      yield* TestClock.adjust("1 millis")
      expect(batches).toEqual([["a", "b", "c"], ["d", "!tool"]])
      // Nothing buffered: no timer fires, nothing is sent.
      yield* TestClock.adjust("1 second")
      expect(batches.length).toBe(2)
      yield* Queue.offerAll(q, ["1", "2", "3", "4", "5"])
      yield* TestClock.adjust("1 millis")
      expect(batches.at(-1)).toEqual(["1", "2", "3", "4", "5"])
      yield* Queue.shutdown(q)
      yield* Fiber.interrupt(fiber)
    }))

  it.effect("hands on what is buffered at the end and before a failure, then raises the failure", () =>
    Effect.gen(function* () {
      const ended = yield* collect(Stream.make("a", "b"))
      yield* Fiber.join(ended.fiber)
      expect(ended.batches).toEqual([["a", "b"]])

      const failing = yield* collect(Stream.make("a", "b").pipe(Stream.concat(Stream.fail("boom"))))
      const exit = yield* Effect.either(Fiber.join(failing.fiber))
      expect(exit).toEqual(Either.left("boom"))
      expect(failing.batches.flat()).toEqual(["a", "b"])
    }))

  it.effect("stops when the consumer says so", () =>
    Effect.gen(function* () {
      const { batches, fiber } = yield* collect(Stream.make("a", "!end", "never").pipe(Stream.rechunk(1)), "!end")
      yield* Fiber.join(fiber)
      expect(batches.flat()).toEqual(["a", "!end"])
    }))

  it.effect("a batch never holds more than maxItems, however many items were read at once; the rest follow in order", () =>
    Effect.gen(function* () {
      const items = Array.from({ length: 23 }, (_, i) => String(i))
      const { batches, fiber } = yield* collect(Stream.fromIterable(items))
      yield* Fiber.join(fiber)
      expect(batches.every((b) => b.length <= policy.maxItems)).toBe(true)
      expect(batches.flat()).toEqual(items)
    }))

  it.scoped("stop, from another fiber, hands on what was read and ends consume; the stream is no longer read", () =>
    Effect.gen(function* () {
      const q = yield* Queue.unbounded<string>()
      let pulled = 0
      const batches = yield* batchesOf(Stream.fromQueue(q).pipe(Stream.tap(() => Effect.sync(() => { pulled += 1 }))), policy)
      const seen: Array<ReadonlyArray<string>> = []
      const consuming = yield* Effect.fork(batches.consume((b) => Effect.sync(() => { seen.push(b); return false })))
      yield* Queue.offerAll(q, ["a", "b"])
      yield* TestClock.adjust("10 millis")
      expect(seen).toEqual([]) // streamed text, waiting for the timer
      yield* batches.stop
      yield* Fiber.join(consuming)
      expect(seen).toEqual([["a", "b"]])
      yield* Queue.offer(q, "late")
      yield* TestClock.adjust("1 second")
      expect(pulled).toBe(2)
    }))

  it.scoped("stop never waits on the consumer: called while a batch is being handed on, it returns, and consume ends after that batch", () =>
    Effect.gen(function* () {
      const q = yield* Queue.unbounded<string>()
      const batches = yield* batchesOf(Stream.fromQueue(q), policy)
      const inBatch = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const seen: Array<ReadonlyArray<string>> = []
      const consuming = yield* Effect.fork(batches.consume((b) =>
        Effect.gen(function* () {
          seen.push(b)
          yield* Deferred.succeed(inBatch, undefined)
          yield* Deferred.await(release)
          return false
        })))
      yield* Queue.offer(q, "!first")
      yield* Deferred.await(inBatch)
      yield* Queue.offerAll(q, ["x", "y"])
      yield* Effect.yieldNow()
      yield* batches.stop // returns while the consumer is held in its batch
      expect(Option.isNone(yield* Fiber.poll(consuming))).toBe(true)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(consuming)
      expect(seen.flat().slice(0, 1)).toEqual(["!first"])
      // What was read before the stop is handed on, nothing after it.
      expect(["!first", "x", "y"]).toEqual(expect.arrayContaining(seen.flat()))
    }))

  it.effect("a batch sent early (an urgent item) leaves no deadline behind: the next one waits its own full interval", () =>
    Effect.gen(function* () {
      const q = yield* Queue.unbounded<string>()
      const { batches, fiber } = yield* collect(Stream.fromQueue(q))
      yield* Queue.offer(q, "a") // waits until 50 ms
      yield* TestClock.adjust("10 millis")
      yield* Queue.offer(q, "!now") // goes at once, with "a"
      yield* TestClock.adjust("10 millis")
      expect(batches).toEqual([["a", "!now"]])
      yield* Queue.offer(q, "b") // at 20 ms: waits until 70 ms, not the 50 ms of the batch before
      yield* TestClock.adjust("35 millis") // 55 ms
      expect(batches).toEqual([["a", "!now"]])
      yield* TestClock.adjust("15 millis") // 70 ms
      expect(batches).toEqual([["a", "!now"], ["b"]])
      yield* Queue.shutdown(q)
      yield* Fiber.interrupt(fiber)
    }))

  it.effect("a failure while buffered items wait for the timer hands them on at once, then raises it", () =>
    Effect.gen(function* () {
      const q = yield* Queue.unbounded<string>()
      const { batches, fiber } = yield* collect(Stream.fromQueue(q).pipe(Stream.concat(Stream.fail("boom"))))
      yield* Queue.offerAll(q, ["a", "b"])
      yield* TestClock.adjust("10 millis")
      expect(batches).toEqual([]) // waiting for the timer
      yield* Queue.shutdown(q) // the stream ends, then fails
      const exit = yield* Effect.either(Fiber.join(fiber))
      expect(exit).toEqual(Either.left("boom"))
      expect(batches).toEqual([["a", "b"]])
    }))

  it.effect("a stream that dies hands on nothing after it and raises the defect", () =>
    Effect.gen(function* () {
      const { fiber } = yield* collect(Stream.make("a").pipe(Stream.concat(Stream.die("broken"))))
      const exit = yield* Fiber.await(fiber)
      expect(exit._tag).toBe("Failure")
    }))

  it.scoped("consumers sharing a timer wait on one sleep between them, and none is left once their text went out", () =>
    Effect.gen(function* () {
      const timer = makeFlushTimer(policy.interval)
      const seen: Array<ReadonlyArray<string>> = []
      const queues = yield* Effect.forEach(Array.from({ length: 10 }, (_, i) => i), (i) =>
        Effect.gen(function* () {
          const q = yield* Queue.unbounded<string>()
          const batches = yield* batchesOf(Stream.fromQueue(q), { ...policy, timer })
          yield* Effect.forkScoped(batches.consume((b) => Effect.sync(() => { seen.push(b); return false })))
          return [q, i] as const
        }))
      yield* Effect.yieldNow()
      expect((yield* TestClock.sleeps()).length).toBe(0) // nothing buffered: no timer at all
      for (const [q, i] of queues) {
        yield* Queue.offer(q, `text ${i}`)
        yield* TestClock.adjust("1 millis")
      }
      expect((yield* TestClock.sleeps()).length).toBe(1)
      yield* TestClock.adjust("39 millis") // 49 ms: the first is not due yet
      expect(seen).toEqual([])
      yield* TestClock.adjust("10 millis") // 59 ms: each went out at its own 50 ms
      expect(seen).toEqual(Array.from({ length: 10 }, (_, i) => [`text ${i}`]))
      expect((yield* TestClock.sleeps()).length).toBe(0)
    }))
})
