/**
 * A held-open event stream of a client key, as every face serves one (the A2A streaming methods,
 * the MCP Tasks `subscriptions/listen`): the face's frames, a keep-alive comment while they are
 * quiet (proxies and clients drop a silent connection), and the end when the key the stream was
 * opened with stops authenticating as its client (revoked or rotated, by this process or another:
 * the Auth change feed tells, as it tells the MCP edge for its calls in flight and its sessions).
 * A face gives the frames already worded; this module adds no byte of its own but the keep-alive.
 */
import { Duration, Effect, Option, Stream } from "effect"
import { Auth } from "../services/auth/Auth.ts"

export const KEEP_ALIVE = Duration.seconds(15)
export const KEEP_ALIVE_FRAME = ": keep-alive\n\n"

/** The key a stream was opened with, and the client it authenticated as then. */
export interface StreamHolder {
  readonly token: string | undefined
  readonly client: string
}

/**
 * Emits once when `holder`'s key no longer authenticates as its client, then ends; checked at each
 * change of the clients table. A check the database could not answer (its server out) is no
 * revocation: the next change asks again. Without the Auth service (a face run alone in a test)
 * no key is ever revoked, as the MCP edge's own recheck has it.
 */
export const keyRevoked = (holder: StreamHolder): Stream.Stream<void> =>
  Stream.unwrap(Effect.map(Effect.serviceOption(Auth), Option.match({
    onNone: () => Stream.never,
    onSome: (auth) =>
      auth.changes().pipe(
        Stream.mapEffect(() => Effect.option(auth.authenticate(holder.token))),
        Stream.filter((checked) => Option.isSome(checked) && (Option.isNone(checked.value) || checked.value.value.client !== holder.client)),
        Stream.take(1),
        Stream.as(undefined)
      )
  })))

export interface HeldStream<R> {
  /** The face's frames; the stream ends when they do. */
  readonly frames: Stream.Stream<string, never, R>
  readonly holder: StreamHolder
  /** The last frame when the key goes (else the stream just ends). */
  readonly revokedFrame?: string | undefined
  readonly keepAlive?: Duration.DurationInput | undefined
}

/**
 * The frames with keep-alives, ended by whichever comes first: the frames' own end, or the
 * holder's key going (after `revokedFrame`). The client going away interrupts it (the response's
 * stream is cancelled), and so does the scope it runs in.
 */
export const heldStream = <R>(input: HeldStream<R>): Stream.Stream<string, never, R> => {
  const keepAlive = Stream.tick(input.keepAlive ?? KEEP_ALIVE).pipe(Stream.drop(1), Stream.as(KEEP_ALIVE_FRAME))
  const events = Stream.merge(input.frames, keepAlive, { haltStrategy: "left" })
  const revokedFrame = input.revokedFrame
  const revoked = keyRevoked(input.holder).pipe(
    Stream.flatMap(() => (revokedFrame === undefined ? Stream.empty : Stream.make(revokedFrame)))
  )
  // The first of the two to end ends the stream: the frames' own end, or the revocation's.
  return Stream.merge(events, revoked, { haltStrategy: "either" })
}
