/**
 * Time, one way: the database stores epoch milliseconds (integers compare and sort as times, and the
 * retention sweeps are one `<`), and what people and agents read is ISO 8601 text with milliseconds
 * (`2026-05-01T12:00:00.000Z`). These are the only conversions between the two.
 */
import { DateTime, Effect, Option, ParseResult, Schema } from "effect"

/** Epoch milliseconds as ISO 8601 text (UTC, with milliseconds). */
export const iso = (ms: number): string => DateTime.formatIso(DateTime.unsafeMake(ms))

/** ISO 8601 text as epoch milliseconds; none when the text is no time. */
export const epochMs = (text: string): Option.Option<number> => {
  const ms = Date.parse(text)
  return Number.isFinite(ms) ? Option.some(ms) : Option.none()
}

/** Now, from Effect's Clock, as ISO text (TestClock moves it). */
export const nowIso: Effect.Effect<string> = Effect.map(Effect.clockWith((c) => c.currentTimeMillis), iso)

/**
 * A stored time: decodes an integer column of epoch milliseconds to ISO text, encodes ISO text to
 * the integer. A value that is no time (text in an integer column, a number out of range) does not decode.
 */
export const IsoFromEpochMs = Schema.transformOrFail(Schema.Int, Schema.String, {
  strict: true,
  decode: (ms, _, ast) =>
    Option.match(DateTime.make(ms), {
      onNone: () => ParseResult.fail(new ParseResult.Type(ast, ms, `${ms} is no time in epoch milliseconds`)),
      onSome: (t) => ParseResult.succeed(DateTime.formatIso(t))
    }),
  encode: (text, _, ast) =>
    Option.match(epochMs(text), {
      onNone: () => ParseResult.fail(new ParseResult.Type(ast, text, `"${text}" is no ISO 8601 time`)),
      onSome: ParseResult.succeed
    })
})
