/**
 * One event stream's body read straight from its Node readable (undici's response body), in the
 * caller's fiber: a loop that takes the next chunk (`readable.read()`, or one wait for `readable`,
 * `end` or `error`), decodes its frames (`makeFrameDecoder`) and hands each event to `onEvent`,
 * which answers whether to read on. A run parked on an approval holds its stream open for hours;
 * read this way it holds one suspended fiber and three listeners, where an Effect `Stream` of the
 * body (the platform's `response.stream` through the SSE stage into `runForEachWhile`) held channel
 * executors, continuations and their closures: about two thirds of a parked follow's heap (issue 41,
 * `scripts/bench-runs.ts idle-external-follow`).
 *
 * Back-pressure is the readable's own: nothing is read while `onEvent` works, so the socket's
 * buffers fill and Hermes waits. The body is destroyed when the loop ends for any reason (read to
 * its end, `onEvent` said stop, a failure, an interruption), which closes the connection.
 */
import { Effect, Either } from "effect"
import type { Readable } from "node:stream"
import type { HermesFailure } from "./failure.ts"
import type { HermesEvent } from "./HermesClient.ts"
import { makeFrameDecoder, toHermesEvents } from "./sse.ts"

const ignoreError = (): void => undefined

/** A piece of the body as `read()` gives it (a string only if someone set an encoding); null once it has ended. */
type BodyPiece = Uint8Array | string | null

const utf8 = new TextEncoder()
const bytesOf = (piece: Uint8Array | string): Uint8Array => (typeof piece === "string" ? utf8.encode(piece) : piece)

/** The body's next chunk, waiting for one without a poll; a failure of the body is `fail(cause)`. */
const nextChunk = (body: Readable, fail: (cause: unknown) => HermesFailure): Effect.Effect<BodyPiece, HermesFailure> =>
  Effect.suspend(() => {
    if (body.errored !== null) return Effect.fail(fail(body.errored))
    const chunk = body.read() as Uint8Array | string | null
    if (chunk !== null) return Effect.succeed(chunk)
    if (body.readableEnded) return Effect.succeed(null)
    if (body.destroyed) return Effect.fail(fail(new Error("the body was closed before its end")))
    return Effect.async<BodyPiece, HermesFailure>((resume) => {
      const done = (next: Effect.Effect<BodyPiece, HermesFailure>) => {
        off()
        resume(next)
      }
      const onReadable = () => done(nextChunk(body, fail))
      const onEnd = () => done(Effect.succeed(null))
      const onError = (cause: unknown) => done(Effect.fail(fail(cause)))
      const onClose = () => done(nextChunk(body, fail))
      const off = () => {
        body.off("readable", onReadable)
        body.off("end", onEnd)
        body.off("error", onError)
        body.off("close", onClose)
      }
      body.on("readable", onReadable)
      body.on("end", onEnd)
      body.on("error", onError)
      body.on("close", onClose)
      return Effect.sync(off)
    })
  })

/**
 * Reads `body` to its end (success), or until `onEvent` answers false (success), or until the body
 * fails (`fail(cause)`: a reset, undici's body timeout). A frame the bridge cannot read is dropped
 * with a warning; one past the SSE parser's size limit (10 MiB) is a defect.
 */
export const readBodyEvents = (
  body: Readable,
  fail: (cause: unknown) => HermesFailure,
  onEvent: (e: HermesEvent) => Effect.Effect<boolean>
): Effect.Effect<void, HermesFailure> =>
  Effect.gen(function* () {
    // A body can fail while no wait is listening (during `onEvent`): without a listener of its own
    // an `error` event would be thrown as an uncaught exception. This one keeps the process up; the
    // failure is read from `body.errored` at the next read.
    body.on("error", ignoreError)
    const decoder = makeFrameDecoder()
    for (;;) {
      const chunk = yield* nextChunk(body, fail)
      const frames = chunk === null ? decoder.end() : decoder.push(bytesOf(chunk))
      if (Either.isLeft(frames)) return yield* Effect.die(frames.left)
      for (const e of yield* toHermesEvents(frames.right)) {
        if (!(yield* onEvent(e))) return
      }
      if (chunk === null) return
    }
  }).pipe(Effect.ensuring(Effect.sync(() => {
    body.destroy()
    // After `destroy` (whose own error, if any, is emitted on a later tick): a listener kept a tick longer.
    setImmediate(() => body.off("error", ignoreError))
  })))
