/**
 * The one writer of Server-Sent Events, for every face's streams (the A2A streaming methods, the
 * MCP Tasks `subscriptions/listen`, the inbox and console pages' feeds): the frame format, a
 * keep-alive comment while the frames are quiet (proxies and clients drop a silent connection),
 * and the response that carries them, as the platform's (`sseResponse`) or as a web-standard one
 * for the MCP edge, which serves web Requests (`sseWebResponse`).
 *
 * A stream held open for a client key (`heldStream`) also ends when that key stops
 * authenticating as its client (revoked or rotated, by this process or another: the Auth change
 * feed tells, as it tells the MCP edge for its calls in flight and its sessions). A page's feed is
 * bound to a sign-in instead, and ends on sign-out (`inbox/events.ts`). A face gives the frames'
 * data already worded; this module adds no byte of its own but the framing and the keep-alive.
 */
import { HttpServerResponse } from "@effect/platform"
import { Duration, Effect, Option, type Runtime, Stream } from "effect"
import { SSE_KEEP_ALIVE_MS } from "../domain/limits.ts"
import { Auth } from "../services/auth/Auth.ts"

export const KEEP_ALIVE = Duration.millis(SSE_KEEP_ALIVE_MS)
export const KEEP_ALIVE_FRAME = ": keep-alive\n\n"

/** One event: its name when it has one (else the client's default, `message`), then its data line. */
export const sseFrame = (data: string, event?: string): string =>
  event === undefined ? `data: ${data}\n\n` : `event: ${event}\ndata: ${data}\n\n`

/** `frames` with a keep-alive comment every `every` after the first; ends when the frames do. */
export const withKeepAlive = <R>(frames: Stream.Stream<string, never, R>, every: Duration.DurationInput = KEEP_ALIVE): Stream.Stream<string, never, R> =>
  Stream.merge(frames, Stream.tick(every).pipe(Stream.drop(1), Stream.as(KEEP_ALIVE_FRAME)), { haltStrategy: "left" })

/** The frames as the platform's event-stream response; `headers` are the face's own. */
export const sseResponse = <R>(frames: Stream.Stream<string, never, R>, options: { readonly contentType?: string; readonly headers: Record<string, string> }) =>
  Effect.map(Effect.context<R>(), (context) =>
    HttpServerResponse.stream(frames.pipe(Stream.encodeText, Stream.provideContext(context)), {
      contentType: options.contentType ?? "text/event-stream",
      headers: options.headers
    }))

/** The frames as a web-standard event-stream response, run in `runtime`; cancelling the body interrupts them. */
export const sseWebResponse = <R>(frames: Stream.Stream<string, never, R>, runtime: Runtime.Runtime<R>, headers: Record<string, string>): Response =>
  new Response(Stream.toReadableStreamRuntime(Stream.encodeText(frames), runtime), {
    status: 200,
    headers: { "content-type": "text/event-stream", ...headers }
  })

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
  const events = withKeepAlive(input.frames, input.keepAlive)
  const revokedFrame = input.revokedFrame
  const revoked = keyRevoked(input.holder).pipe(
    Stream.flatMap(() => (revokedFrame === undefined ? Stream.empty : Stream.make(revokedFrame)))
  )
  // The first of the two to end ends the stream: the frames' own end, or the revocation's.
  return Stream.merge(events, revoked, { haltStrategy: "either" })
}
