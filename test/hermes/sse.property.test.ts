/**
 * The SSE decoding of Hermes's event stream: any valid stream, cut into chunks at any byte offsets,
 * decodes to the same events. Streams mix LF / CRLF / CR line ends, comments and keepalives,
 * frames with and without `id:`, `data:` with and without the space, multi-line data, and JSON
 * both ASCII-escaped (`\uXXXX`, as Hermes sends it) and raw UTF-8 (multi-byte characters get cut).
 */
import { Effect, Schema } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type HermesEvent, HermesEventData, makeEvent } from "../../src/domain/runs/hermesEvents.ts"
import { makeLineSplitter } from "../../src/hermes/client/sse.ts"
import { bodyEvents } from "./support/bodyEvents.ts"
import { asciiJson } from "../../src/hermes/sim/wire.ts"

const decode = (chunks: ReadonlyArray<Uint8Array>) => Effect.runPromise(bodyEvents(chunks))

const utf8 = (s: string) => new TextEncoder().encode(s)

/** Cuts `bytes` at the given offsets (sorted, deduplicated, inside the array). */
const cut = (bytes: Uint8Array, offsets: ReadonlyArray<number>): ReadonlyArray<Uint8Array> => {
  const points = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b)
  const out: Array<Uint8Array> = []
  let prev = 0
  for (const p of [...points, bytes.length]) {
    out.push(bytes.slice(prev, p))
    prev = p
  }
  return out
}

interface FrameSpec {
  readonly id: number | null
  readonly event: string
  readonly text: string
  readonly ascii: boolean
  readonly multiline: boolean
  readonly spaceAfterColon: boolean
  readonly commentBefore: boolean
}

const frameArb: fc.Arbitrary<FrameSpec> = fc.record({
  id: fc.option(fc.nat({ max: 100_000 }), { nil: null }),
  event: fc.constantFrom("message.delta", "tool.started", "run.completed", "approval.request"),
  text: fc.string({ unit: "grapheme", maxLength: 40 }),
  ascii: fc.boolean(),
  multiline: fc.boolean(),
  spaceAfterColon: fc.boolean(),
  commentBefore: fc.boolean()
})

const lineEndArb = fc.constantFrom("\n", "\r\n", "\r")

/** The wire text of a stream plus the events it must decode to. */
const encode = (frames: ReadonlyArray<FrameSpec>, ends: ReadonlyArray<string>) => {
  let n = 0
  let previous = ""
  // A CR followed by an LF line end would be one CRLF, so that LF is written as CRLF instead.
  const end = () => {
    const e = ends[n++ % ends.length] ?? "\n"
    previous = previous === "\r" && e === "\n" ? "\r\n" : e
    return previous
  }
  let text = ""
  const expected: Array<HermesEvent> = []
  for (const [i, f] of frames.entries()) {
    const data = { event: f.event, run_id: `run_${i}`, timestamp: 1700000000.5 + i, delta: f.text }
    if (f.commentBefore) text += `: keepalive${end()}${end()}`
    if (f.id !== null) text += `id: ${f.id}${end()}`
    const json = f.multiline ? JSON.stringify(data, null, 1) : f.ascii ? asciiJson(data) : JSON.stringify(data)
    for (const line of json.split("\n")) text += `data:${f.spaceAfterColon ? " " : ""}${line}${end()}`
    text += end()
    expected.push(makeEvent(f.id, Schema.decodeUnknownSync(HermesEventData)(data)))
  }
  text += `: stream closed${end()}${end()}`
  return { text, expected }
}

describe("Hermes SSE decoding", () => {
  it("decodes any valid stream to the same events however it is chunked", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(frameArb, { minLength: 1, maxLength: 12 }),
        fc.array(lineEndArb, { minLength: 1, maxLength: 5 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        async (frames, ends, offsets) => {
          const { text, expected } = encode(frames, ends)
          const bytes = utf8(text)
          const whole = await decode([bytes])
          const chunked = await decode(cut(bytes, offsets))
          expect(whole).toEqual(expected)
          expect(chunked).toEqual(expected)
        }
      ),
      { numRuns: 300 }
    )
  })

  it("keeps a CRLF split across two chunks as one line end", async () => {
    // The SSE parser alone would read the lone LF of the second chunk as an empty line and end the
    // event early (its CR state does not survive a chunk boundary); the line splitter prevents it.
    const events = await decode([utf8("id: 1\r\ndata: {\"event\":\"a\",\r"), utf8("\ndata: \"x\":1}\r\n\r\n")])
    expect(events).toEqual([{ id: 1, event: "a", data: { event: "a", x: 1 } }])
  })

  it("turns \\uXXXX escapes (surrogate pairs included) back into text", async () => {
    const payload = { event: "message.delta", delta: "naïve — 東京 🚀" }
    const wire = asciiJson(payload)
    expect(wire).toMatch(/^[\x20-\x7e]+$/)
    const events = await decode([utf8(`data: ${wire}\n\n`)])
    expect(events[0]?.data).toEqual(payload)
  })

  it("skips frames that are not a JSON object with an event name, and comments", async () => {
    const events = await decode([utf8(": hi\n\ndata: not json\n\ndata: [1]\n\ndata: {\"x\":1}\n\ndata: {\"event\":\"ok\"}\n\n")])
    expect(events.map((e) => e.event)).toEqual(["ok"])
  })

  it("normalizes line ends without merging or losing text", () => {
    const splitter = makeLineSplitter()
    const out = [...["a\r", "\nb\r", "c\r\n", "\r"].flatMap(splitter.push), ...splitter.end()].join("")
    expect(out).toBe("a\nb\nc\n\n")
  })
})
