/**
 * A streaming method's answer on the wire: `text/event-stream`, one JSON-RPC response per `data:`
 * frame (the SDK's transport makes them), a keep-alive comment every KEEP_ALIVE while the run is
 * quiet (proxies and clients drop a silent connection), and an error frame for a failure mid-way.
 * The stream ends when the task's stream does, when the client goes away, or when the key it was
 * opened with stops authenticating (revoked or rotated: an error frame, then the close). The
 * keep-alives and the revocation are the held stream's every face shares (`../sse.ts`).
 *
 * The generator is read here, not with `Stream.fromAsyncIterable`: that one's finalizer awaits the
 * generator's `return()`, which waits for the step in flight (up to a step's wait). Here the close
 * aborts the request's runner first, which interrupts that step, so the close is immediate and
 * leaves no fiber behind.
 */
import { JsonRpcTransportHandler } from "@a2a-js/sdk/server"
import { A2AError } from "@a2a-js/sdk/errors"
import { Duration, Effect, Option, Stream } from "effect"
import type { Auth } from "../../services/auth/Auth.ts"
import { heldStream, sseFrame, sseResponse } from "../sse.ts"

export { KEEP_ALIVE } from "../sse.ts"
/** How long the close waits for the generator to finish after its step was interrupted. */
const RETURN_LIMIT = Duration.seconds(2)

const frame = (message: unknown) => sseFrame(JSON.stringify(message))

export interface SseInput {
  readonly events: AsyncGenerator<unknown>
  /** The first response, already read (a failure before it is answered as plain JSON instead). */
  readonly first: unknown
  readonly id: unknown
  /** Aborts the request's runner (the step in flight). */
  readonly abort: AbortController
  /** The key the stream was opened with, and its client. */
  readonly token: string | undefined
  readonly client: string
  readonly keepAlive?: Duration.DurationInput | undefined
  /** Gives back the client's open-stream slot (`ClientQuotas`) when the stream ends, however it ends. */
  readonly release?: Effect.Effect<void> | undefined
}

/** The error frame a revoked or rotated key's stream ends with. */
export const revokedError = () =>
  JsonRpcTransportHandler.mapToJSONRPCError(new A2AError({
    message: "this key was revoked or rotated while the stream was open",
    metadata: { bridge_code: "auth.forbidden" }
  }))

const generatorFrames = (input: SseInput): Stream.Stream<string> =>
  Stream.unwrapScoped(Effect.map(
    Effect.acquireRelease(Effect.succeed(input.events), (events) =>
      Effect.sync(() => input.abort.abort()).pipe(
        Effect.zipRight(Effect.promise(() => events.return(undefined).then(() => undefined, () => undefined))),
        Effect.timeout(RETURN_LIMIT),
        Effect.ignore
      )),
    (events) =>
      Stream.concat(Stream.make(frame(input.first)), Stream.repeatEffectOption(
        Effect.tryPromise({ try: () => events.next(), catch: (error) => Option.some(error) }).pipe(
          Effect.flatMap((r) => (r.done === true ? Effect.fail(Option.none()) : Effect.succeed(frame(r.value))))
        )
      )).pipe(
        Stream.catchAll((error) => Stream.make(frame({ jsonrpc: "2.0", id: input.id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) })))
      )
  ))

export const sseFrames = (input: SseInput): Stream.Stream<string, never, Auth> => {
  const frames = heldStream({
    frames: generatorFrames(input),
    holder: { token: input.token, client: input.client },
    revokedFrame: frame({ jsonrpc: "2.0", id: input.id, error: revokedError() }),
    keepAlive: input.keepAlive
  })
  return input.release === undefined ? frames : Stream.ensuring(frames, input.release)
}

export const a2aSseResponse = (input: SseInput) =>
  sseResponse(sseFrames(input), { headers: { "cache-control": "no-cache", "x-accel-buffering": "no" } })
