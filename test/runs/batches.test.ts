/**
 * Batching a follower's stream (TestClock): streamed text waits for the short timer, anything urgent
 * goes at once with what is buffered, a full buffer goes at once, and the end or a failure never
 * strands buffered items.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Fiber, Queue, Stream, TestClock } from "effect"
import { type BatchPolicy, consumeInBatches } from "../../src/services/runs/batches.ts"

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
})
