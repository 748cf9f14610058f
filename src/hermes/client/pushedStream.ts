/**
 * A producer that hands items to an `offer` effect, as a back-pressured Stream: the producer runs
 * in a fiber of the stream's scope and waits while `capacity` items are not yet taken; its end or
 * failure is the stream's. The one way the Hermes client turns its effect-shaped reads (`follow`,
 * a connection's events) into the Stream forms of its interface.
 */
import { Effect, Mailbox, Stream } from "effect"

export const pushedStream = <A, E>(
  produce: (offer: (a: A) => Effect.Effect<boolean>) => Effect.Effect<void, E>,
  capacity = 64
): Stream.Stream<A, E> =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const mailbox = yield* Mailbox.make<A, E>({ capacity })
      yield* produce((a) => mailbox.offer(a)).pipe(Mailbox.into(mailbox), Effect.forkScoped)
      return Mailbox.toStream(mailbox)
    })
  )
