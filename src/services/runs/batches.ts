/**
 * Cuts a live event stream into batches, one ledger write each: buffered items go out when one of
 * them is urgent (anything but streamed text), when `maxItems` are buffered, or when the oldest has
 * waited `interval` (the "short timer"), and whatever is buffered goes out before the stream's end
 * or failure. No batch holds more than `maxItems`.
 *
 * The stream is read into a Mailbox by one producer fiber (for a run's follow, the follow itself:
 * `HermesClient.followInto`), and the consumer only ever waits on that Mailbox: while text waits
 * for the timer, the timer (`flushTimer.ts`, one for all of a follower's runs) knocks on it when
 * the deadline passes. So a run holds no fiber beyond the producer and the consumer, parked or
 * streaming (`Stream.groupedWithin` costs far more per stream, and racing each take against a
 * timeout forked two fibers per streamed event). The batches can be ended from outside
 * (`stop`, from any fiber, never blocking): the Mailbox is ended, so what it holds is still handed
 * on, and the producer is interrupted. That is how a follow is cut when its run ended elsewhere,
 * without a fiber per run racing the stream against a signal (`Stream.interruptWhen` holds two, and
 * a channel executor, for as long as the run is parked).
 */
import { type Duration, Effect, Either, Fiber, Mailbox, type Scope, Stream } from "effect"
import { type FlushDeadline, makeFlushTimer, type FlushTimer } from "./flushTimer.ts"

export interface BatchPolicy<A> {
  readonly maxItems: number
  readonly interval: Duration.DurationInput
  /** An item that must not wait for the timer; it goes out with everything buffered before it. */
  readonly urgent: (a: A) => boolean
  /**
   * The timer the deadlines are kept on, shared by many consumers (a follower's runs): made with
   * this policy's `interval`. Without one, the batches make their own.
   */
  readonly timer?: FlushTimer
}

/**
 * How many items the producer may read ahead of the consumer (a ledger write): the stream's
 * back-pressure, so a flood from Hermes holds at most this many events per run in memory here.
 */
const READ_AHEAD = 64

/** What the timer puts in the Mailbox to wake a consumer waiting on it; never handed on. */
class Knock {}
const KNOCK = new Knock()

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
 * Starts `produce` in a fiber of `scope` (it stops when the scope closes): it hands each item to
 * the `offer` it is given, which waits while the consumer is `READ_AHEAD` items behind, and its end
 * (or failure) is the batches' end. The scope is an argument, not a service: providing it would
 * copy the caller's whole context for the producer to hold, for as long as a parked run's follow
 * lasts.
 */
export const batchesIn = <A, E, R>(
  scope: Scope.Scope,
  produce: (offer: (a: A) => Effect.Effect<unknown>) => Effect.Effect<void, E, R>,
  policy: BatchPolicy<A>
): Effect.Effect<Batches<A, E>, never, R> =>
  Effect.gen(function* () {
    const timer = policy.timer ?? makeFlushTimer(policy.interval)
    const mailbox = yield* Mailbox.make<A | Knock, E>(READ_AHEAD)
    const producer = yield* produce((a) => mailbox.offer(a)).pipe(Mailbox.into(mailbox), Effect.forkIn(scope))
    // A knock that finds the Mailbox full is dropped: the consumer then has items to take, and
    // finds its deadline due after taking them. One that finds it ended is dropped too.
    const knock = () => {
      mailbox.unsafeOffer(KNOCK)
    }

    const consume = <E2, R2>(onBatch: (batch: ReadonlyArray<A>) => Effect.Effect<boolean, E2, R2>): Effect.Effect<void, E | E2, R2> => {
      let buffer: Array<A> = []
      let deadline: FlushDeadline | null = null
      /** Hands the buffer on (never more than `maxItems`); true when the consumer wants no more. */
      const flush = Effect.suspend(() => {
        deadline?.cancel()
        deadline = null
        if (buffer.length === 0) return Effect.succeed(false)
        const batch = buffer
        buffer = []
        return onBatch(batch)
      })
      return Effect.gen(function* () {
        for (;;) {
          // At rest and while text waits alike, the consumer waits on the Mailbox alone: the
          // timer's knock comes through it. The stream's failure comes as the take's: what is
          // buffered goes out before it is raised.
          const taken = yield* Effect.either(mailbox.takeAll)
          if (Either.isLeft(taken)) {
            if (yield* flush) return
            return yield* Effect.fail(taken.left)
          }
          const [items, done] = taken.right
          // Item by item, so an urgent one goes out with what came before it and nothing after.
          for (const a of items) {
            if (a instanceof Knock) continue
            if (buffer.length === 0) deadline = yield* timer.after(knock)
            buffer.push(a)
            if ((buffer.length >= policy.maxItems || policy.urgent(a)) && (yield* flush)) return
          }
          // The stream ended (or `stop` ended the Mailbox) and everything it held was taken.
          if (done) {
            yield* flush
            return
          }
          // A knock of a deadline since cancelled (its batch went out early) finds this one not due.
          if (deadline?.due === true && (yield* flush)) return
        }
      }).pipe(Effect.ensuring(Effect.sync(() => deadline?.cancel())))
    }

    return {
      consume,
      stop: Effect.zipRight(mailbox.end, Fiber.interruptFork(producer))
    }
  })

/** `batchesIn` the caller's scope, reading a stream. */
export const batchesOf = <A, E, R>(stream: Stream.Stream<A, E, R>, policy: BatchPolicy<A>): Effect.Effect<Batches<A, E>, never, Scope.Scope | R> =>
  Effect.flatMap(Effect.scope, (scope) => batchesIn<A, E, R>(scope, (offer) => Stream.runForEach(stream, offer), policy))

/**
 * Consumes `stream`, handing each batch to `onBatch` in order, until the stream ends or `onBatch`
 * answers `true` (stop). A stream failure is raised after the items received before it are handed on.
 */
export const consumeInBatches = <A, E, R, E2, R2>(
  stream: Stream.Stream<A, E, R>,
  policy: BatchPolicy<A>,
  onBatch: (batch: ReadonlyArray<A>) => Effect.Effect<boolean, E2, R2>
): Effect.Effect<void, E | E2, R | R2> => Effect.scoped(Effect.flatMap(batchesOf(stream, policy), (b) => b.consume(onBatch)))
