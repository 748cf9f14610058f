/**
 * Hermes's event stream bytes → `HermesEvent`s, with @effect/experimental's SSE decoder doing the
 * SSE parsing (comments, keepalives, multi-line `data:`, frames with and without `id:`). The JSON in
 * `data` is ASCII-escaped by Hermes; `JSON.parse` turns `\uXXXX` back into text.
 */
import * as Sse from "@effect/experimental/Sse"
import { Effect, Option, Stream } from "effect"
import { decodeEventData, type HermesEvent, makeEvent } from "../../domain/runs/hermesEvents.ts"

/**
 * Prepares text for the SSE decoder: folds CRLF and lone CR line ends into LF, and hands the text
 * over one line at a time. Two reasons, both about the decoder's handling of a fed piece:
 * - it handles CRLF only when both characters arrive in the same piece: a chunk ending in CR
 *   followed by one starting with LF would read as an extra blank line and end an event early,
 *   so a trailing CR is held back until the next chunk;
 * - it rescans a piece from its start for every line in it, which is quadratic in the chunk size
 *   (a 16 KiB chunk of small frames cost seconds); line-sized pieces keep it linear.
 */
export const normalizeLineEnds = <E, R>(text: Stream.Stream<string, E, R>): Stream.Stream<string, E, R> =>
  Stream.suspend(() => {
    let heldCr = false
    return text.pipe(
      Stream.map((chunk) => {
        let s = heldCr ? `\r${chunk}` : chunk
        heldCr = s.endsWith("\r")
        if (heldCr) s = s.slice(0, -1)
        return s.replace(/\r\n?/g, "\n")
      }),
      Stream.concat(Stream.suspend(() => Stream.succeed(heldCr ? "\n" : ""))),
      Stream.mapConcat((s) => s.split(/(?<=\n)/)),
      Stream.filter((s) => s !== "")
    )
  })

/** The SSE frames of a byte stream (UTF-8, split anywhere, multi-byte characters included). */
export const sseFrames = <E, R>(bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<Sse.Event, E, R> =>
  bytes.pipe(Stream.decodeText(), normalizeLineEnds, Stream.pipeThroughChannel(Sse.makeChannel()))

/**
 * One frame as a Hermes event, decoded once with the event vocabulary's Schema
 * (`domain/runs/hermesEvents.ts`): none for a frame that is not a JSON object with an `event`
 * name, or that names a known event with fields of the wrong type.
 */
export const toHermesEvent = (frame: Sse.Event): Option.Option<HermesEvent> => {
  let json: unknown
  try {
    json = JSON.parse(frame.data)
  } catch {
    return Option.none()
  }
  const rawId = frame.id?.trim()
  const id = rawId !== undefined && /^\d+$/.test(rawId) ? Number(rawId) : null
  return Option.map(decodeEventData(json), (data) => makeEvent(id, data))
}

/** The events of a byte stream; a frame the bridge cannot read is dropped with a warning. */
export const hermesEvents = <E, R>(bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<HermesEvent, E, R> =>
  sseFrames(bytes).pipe(
    Stream.mapEffect((frame): Effect.Effect<Option.Option<HermesEvent>> => {
      const decoded = toHermesEvent(frame)
      return Option.isSome(decoded)
        ? Effect.succeed(decoded)
        : Effect.logWarning("Hermes trouble: an event frame the bridge cannot read; dropping it").pipe(
          Effect.annotateLogs({ route: "GET /v1/runs/{id}/events", frame: frame.data.slice(0, 200), next: "reading on" }),
          Effect.as(decoded)
        )
    }),
    Stream.filterMap((e) => e)
  )
