/**
 * Cuts a live event stream into batches, one ledger write each: buffered items go out when one of
 * them is urgent (anything but streamed text), when the buffer is full, or when the oldest has waited
 * `interval` (the "short timer"), and whatever is buffered goes out before the stream's end or
 * failure. At rest (nothing buffered) this holds no timer and no fiber beyond the stream's producer,
 * which keeps an idle followed run cheap; `Stream.groupedWithin` costs far more per stream.
 */
import { Chunk, Clock, Duration, Effect, Option, Queue, Stream, Take } from "effect"

export interface BatchPolicy<A> {
  readonly maxItems: number
  readonly interval: Duration.DurationInput
  /** An item that must not wait for the timer; it goes out with everything buffered before it. */
  readonly urgent: (a: A) => boolean
}

/**
 * Consumes `stream`, handing each batch to `onBatch` in order, until the stream ends or `onBatch`
 * answers `true` (stop). A stream failure is raised after the items received before it are handed on.
 */
export const consumeInBatches = <A, E, R, E2, R2>(
  stream: Stream.Stream<A, E, R>,
  policy: BatchPolicy<A>,
  onBatch: (batch: ReadonlyArray<A>) => Effect.Effect<boolean, E2, R2>
): Effect.Effect<void, E | E2, R | R2> =>
  Effect.scoped(
    Effect.gen(function* () {
      const interval = Duration.toMillis(policy.interval)
      const queue = yield* Stream.toQueue(stream, { capacity: 4 })
      let buffer: Array<A> = []
      let deadline = 0

      /** Hands the buffer on; true when the consumer wants no more. */
      const flush = Effect.suspend(() => {
        if (buffer.length === 0) return Effect.succeed(false)
        const batch = buffer
        buffer = []
        return onBatch(batch)
      })

      for (;;) {
        let take: Take.Take<A, E>
        if (buffer.length === 0) {
          take = yield* Queue.take(queue)
        } else {
          // A take interrupted by the timeout leaves the queue as it was: nothing is lost.
          const wait = Math.max(0, deadline - (yield* Clock.currentTimeMillis))
          const next = yield* Effect.timeoutOption(Queue.take(queue), wait)
          if (Option.isNone(next)) {
            if (yield* flush) return
            continue
          }
          take = next.value
        }
        const chunk = yield* Effect.either(Take.done(take))
        if (chunk._tag === "Left") {
          const stop = yield* flush
          if (Option.isSome(chunk.left) && !stop) return yield* Effect.fail(chunk.left.value)
          return
        }
        if (chunk.right.length === 0) continue
        if (buffer.length === 0) deadline = (yield* Clock.currentTimeMillis) + interval
        for (const a of chunk.right) buffer.push(a)
        const due = buffer.length >= policy.maxItems || Chunk.some(chunk.right, policy.urgent)
        if (due && (yield* flush)) return
      }
    })
  )
