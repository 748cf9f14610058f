/**
 * Hermes's event stream bytes → `HermesEvent`s, with @effect/experimental's SSE decoder doing the
 * SSE parsing (comments, keepalives, multi-line `data:`, frames with and without `id:`); `sseBody.ts`
 * reads a connection's body through it. The JSON in `data` is ASCII-escaped by Hermes; `JSON.parse`
 * turns `\uXXXX` back into text.
 */
import * as Sse from "@effect/experimental/Sse"
import { Chunk, Effect, Either, Option } from "effect"
import { decodeEventData, type HermesEvent, makeEvent } from "../../domain/runs/hermesEvents.ts"

/**
 * Prepares text for the SSE parser, piece by piece: folds CRLF and lone CR line ends into LF, and
 * hands the text over one line at a time. Two reasons, both about the parser's handling of a fed piece:
 * - it handles CRLF only when both characters arrive in the same piece: a chunk ending in CR
 *   followed by one starting with LF would read as an extra blank line and end an event early,
 *   so a trailing CR is held back until the next chunk;
 * - it rescans a piece from its start for every line in it, which is quadratic in the chunk size
 *   (a 16 KiB chunk of small frames cost seconds); line-sized pieces keep it linear.
 */
export const makeLineSplitter = () => {
  let heldCr = false
  const lines = (s: string): Array<string> => s.split(/(?<=\n)/).filter((line) => line !== "")
  return {
    push: (chunk: string): Array<string> => {
      let s = heldCr ? `\r${chunk}` : chunk
      heldCr = s.endsWith("\r")
      if (heldCr) s = s.slice(0, -1)
      return lines(s.replace(/\r\n?/g, "\n"))
    },
    /** The text's end: a CR held back is a line end after all. */
    end: (): Array<string> => (heldCr ? ["\n"] : [])
  }
}

/**
 * Bytes → SSE frames, incrementally, with @effect/experimental's SSE parser: one plain object per
 * connection. A followed run holds its stream open for as long as it is parked, so the decoding is
 * one plain object, not a stream stage per step (text decoding, line ends, lines, the parser's
 * channel, which holds a fiber and a queue of its own per connection). A `retry:` field is ignored (the
 * follow has its own reconnect schedule); a frame past the parser's size limit (10 MiB) is an error.
 */
export const makeFrameDecoder = () => {
  const text = new TextDecoder()
  const splitter = makeLineSplitter()
  let frames: Array<Sse.Event> = []
  const parser = Sse.makeParser((e) => {
    if (e._tag === "Event") frames.push(e)
  })
  const feed = (lines: ReadonlyArray<string>): Sse.SseError | undefined => {
    for (const line of lines) {
      const error = parser.feed(line)
      if (error !== undefined) return error
    }
    return undefined
  }
  const take = (error: Sse.SseError | undefined): Either.Either<Array<Sse.Event>, Sse.SseError> => {
    const out = frames
    frames = []
    return error === undefined ? Either.right(out) : Either.left(error)
  }
  return {
    /** The frames these bytes completed (UTF-8 split anywhere, multi-byte characters included). */
    push: (bytes: Uint8Array) => take(feed(splitter.push(text.decode(bytes, { stream: true })))),
    /** The frames the end of the bytes completes (a frame without its blank line is not one). */
    end: () => take(feed([...splitter.push(text.decode()), ...splitter.end()]))
  }
}

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

/** The frames as Hermes events; a frame the bridge cannot read is dropped with a warning. */
export const toHermesEvents = (frames: ReadonlyArray<Sse.Event>): Effect.Effect<Chunk.Chunk<HermesEvent>> => {
  const events: Array<HermesEvent> = []
  const unread: Array<Sse.Event> = []
  for (const frame of frames) {
    const decoded = toHermesEvent(frame)
    if (Option.isSome(decoded)) events.push(decoded.value)
    else unread.push(frame)
  }
  const out = Chunk.unsafeFromArray(events)
  if (unread.length === 0) return Effect.succeed(out)
  return Effect.as(
    Effect.forEach(unread, (frame) =>
      Effect.logWarning("Hermes trouble: an event frame the bridge cannot read; dropping it").pipe(
        Effect.annotateLogs({ route: "GET /v1/runs/{id}/events", frame: frame.data.slice(0, 200), next: "reading on" })
      ), { discard: true }),
    out
  )
}
