/**
 * Cuts a live event stream into batches, one ledger write each: buffered items go out when one of
 * them is urgent (anything but streamed text), when `maxItems` are buffered, or when the oldest has
 * waited `interval` (the "short timer"), and whatever is buffered goes out before the stream's end
 * or failure. No batch holds more than `maxItems`.
 *
 * The stream is read into a Mailbox by one producer fiber (for a run's follow, the follow itself:
 * `HermesClient.followInto`). At rest (nothing buffered) the consumer
 * waits on the Mailbox alone: no timer and no fiber beyond the producer, which keeps a parked run
 * cheap (`Stream.groupedWithin` costs far more per stream). The batches can be ended from outside
 * (`stop`, from any fiber, never blocking): the Mailbox is ended, so what it holds is still handed
 * on, and the producer is interrupted. That is how a follow is cut when its run ended elsewhere,
 * without a fiber per run racing the stream against a signal (`Stream.interruptWhen` holds two, and
 * a channel executor, for as long as the run is parked).
 */
import { Clock, Duration, Effect, Either, Fiber, Mailbox, Option, type Scope, Stream } from "effect"

export interface BatchPolicy<A> {
  readonly maxItems: number
  readonly interval: Duration.DurationInput
  /** An item that must not wait for the timer; it goes out with everything buffered before it. */
  readonly urgent: (a: A) => boolean
}

/**
 * How many items the producer may read ahead of the consumer (a ledger write): the stream's
 * back-pressure, so a flood from Hermes holds at most this many events per run in memory here.
 */
const READ_AHEAD = 64

export interface Batches<A, E> {
  /**
   * Hands each batch to `onBatch` in order until the stream ends, `stop` is called, or `onBatch`
   * answers `true` (no more). A stream failure is raised after the items received before it are
   * handed on. Called once.
   */
  readonly consume: <E2, R2>(onBatch: (batch: ReadonlyArray<A>) => Effect.Effect<boolean, E2, R2>) => Effect.Effect<void, E | E2, R2>
  /** Ends the batches: what was received is handed on, then `consume` returns. Never blocks. */
  readonly stop: Effect.Effect<void>
}

/**
 * Starts `produce` in a fiber of the caller's scope (it stops when the scope closes): it hands each
 * item to the `offer` it is given, which waits while the consumer is `READ_AHEAD` items behind,
 * and its end (or failure) is the batches' end.
 */
export const batchesFrom = <A, E, R>(
  produce: (offer: (a: A) => Effect.Effect<unknown>) => Effect.Effect<void, E, R>,
  policy: BatchPolicy<A>
): Effect.Effect<Batches<A, E>, never, Scope.Scope | R> =>
  Effect.gen(function* () {
    const interval = Duration.toMillis(policy.interval)
    const mailbox = yield* Mailbox.make<A, E>(READ_AHEAD)
    const producer = yield* produce((a) => mailbox.offer(a)).pipe(Mailbox.into(mailbox), Effect.forkScoped)

    const consume = <E2, R2>(onBatch: (batch: ReadonlyArray<A>) => Effect.Effect<boolean, E2, R2>): Effect.Effect<void, E | E2, R2> =>
      Effect.gen(function* () {
        let buffer: Array<A> = []
        let deadline = 0
        /** Hands the buffer on (never more than `maxItems`); true when the consumer wants no more. */
        const flush = Effect.suspend(() => {
          if (buffer.length === 0) return Effect.succeed(false)
          const batch = buffer
          buffer = []
          return onBatch(batch)
        })

        for (;;) {
          // The stream's failure comes as the take's: what is buffered goes out before it is raised.
          let taken: Either.Either<readonly [Iterable<A>, boolean], E>
          if (buffer.length === 0) {
            taken = yield* Effect.either(mailbox.takeAll)
          } else {
            // A take interrupted by the timeout leaves the Mailbox as it was: nothing is lost.
            const wait = Math.max(0, deadline - (yield* Clock.currentTimeMillis))
            const next = yield* Effect.timeoutOption(Effect.either(mailbox.takeAll), wait)
            if (Option.isNone(next)) {
              if (yield* flush) return
              continue
            }
            taken = next.value
          }
          if (Either.isLeft(taken)) {
            if (yield* flush) return
            return yield* Effect.fail(taken.left)
          }
          const [items, done] = taken.right
          // Item by item, so an urgent one goes out with what came before it and nothing after.
          for (const a of items) {
            if (buffer.length === 0) deadline = (yield* Clock.currentTimeMillis) + interval
            buffer.push(a)
            if ((buffer.length >= policy.maxItems || policy.urgent(a)) && (yield* flush)) return
          }
          // The stream ended (or `stop` ended the Mailbox) and everything it held was taken.
          if (done) {
            yield* flush
            return
          }
        }
      })

    return {
      consume,
      stop: Effect.zipRight(mailbox.end, Fiber.interruptFork(producer))
    }
  })

/** `batchesFrom` reading a stream. */
export const batchesOf = <A, E, R>(stream: Stream.Stream<A, E, R>, policy: BatchPolicy<A>): Effect.Effect<Batches<A, E>, never, Scope.Scope | R> =>
  batchesFrom<A, E, R>((offer) => Stream.runForEach(stream, offer), policy)

/**
 * Consumes `stream`, handing each batch to `onBatch` in order, until the stream ends or `onBatch`
 * answers `true` (stop). A stream failure is raised after the items received before it are handed on.
 */
export const consumeInBatches = <A, E, R, E2, R2>(
  stream: Stream.Stream<A, E, R>,
  policy: BatchPolicy<A>,
  onBatch: (batch: ReadonlyArray<A>) => Effect.Effect<boolean, E2, R2>
): Effect.Effect<void, E | E2, R | R2> => Effect.scoped(Effect.flatMap(batchesOf(stream, policy), (b) => b.consume(onBatch)))
