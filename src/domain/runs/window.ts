import { TEXT_LIMIT_BYTES, WINDOW_BYTES } from "../limits.ts"
/**
 * Size limits on what a run view carries (docs/REFERENCE.md): `output` in 16 KiB windows of UTF-8
 * bytes that never split a character, every other text cut at 16 KiB, previews of 200 characters.
 * Pure functions over strings and bytes; the ledger supplies the bytes.
 */

/** Stored text on each side of a window or page that the redactor sees as context. */
export const CONTEXT_CHARS = 8192
/** Bytes that surely hold CONTEXT_CHARS characters of UTF-8. */
export const CONTEXT_BYTES = CONTEXT_CHARS * 4

const encoder = new TextEncoder()
const decoder = new TextDecoder("utf-8")

export const utf8 = (s: string): Uint8Array => encoder.encode(s)
export const fromUtf8 = (b: Uint8Array): string => decoder.decode(b)
export const utf8Length = (s: string): number => Buffer.byteLength(s, "utf8")

const isContinuation = (b: number | undefined): boolean => b !== undefined && (b & 0xc0) === 0x80

/** The greatest character boundary ≤ `i` in `bytes`. */
export const boundaryAtOrBefore = (bytes: Uint8Array, i: number): number => {
  let j = Math.min(Math.max(i, 0), bytes.length)
  while (j > 0 && j < bytes.length && isContinuation(bytes[j])) j--
  return j
}

/** The least character boundary ≥ `i` in `bytes`. */
export const boundaryAtOrAfter = (bytes: Uint8Array, i: number): number => {
  let j = Math.min(Math.max(i, 0), bytes.length)
  while (j < bytes.length && isContinuation(bytes[j])) j++
  return j
}

export interface Cut {
  readonly text: string
  readonly truncated: boolean
}

/** `s` cut to at most `maxBytes` of UTF-8, on a character boundary. */
export const cutUtf8 = (s: string, maxBytes: number = TEXT_LIMIT_BYTES): Cut => {
  // Each UTF-16 unit is at most 3 UTF-8 bytes: short strings need no encoding.
  if (s.length * 3 <= maxBytes) return { text: s, truncated: false }
  const bytes = utf8(s)
  if (bytes.length <= maxBytes) return { text: s, truncated: false }
  return { text: fromUtf8(bytes.subarray(0, boundaryAtOrBefore(bytes, maxBytes))), truncated: true }
}

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff

/** The first `n` characters (code points) of `s`. */
export const firstChars = (s: string, n: number): string => {
  let units = 0
  for (let count = 0; count < n && units < s.length; count++) {
    units += isHighSurrogate(s.charCodeAt(units)) && isLowSurrogate(s.charCodeAt(units + 1)) ? 2 : 1
  }
  return s.slice(0, units)
}

/** The last `n` characters (code points) of `s`. */
export const lastChars = (s: string, n: number): string => {
  let start = s.length
  for (let count = 0; count < n && start > 0; count++) {
    start -= isLowSurrogate(s.charCodeAt(start - 1)) && isHighSurrogate(s.charCodeAt(start - 2)) ? 2 : 1
  }
  return s.slice(start)
}

/**
 * A run of stored output bytes: `bytes` are the output's bytes from `base` on, starting and ending
 * on character boundaries; `total` is the whole output's length in bytes.
 */
export interface OutputSlice {
  readonly base: number
  readonly bytes: Uint8Array
  readonly total: number
}

export interface OutputWindow {
  /** Where the window starts (the requested offset, moved forward to a character boundary). */
  readonly offset: number
  readonly text: string
  /** Stored output just before and after the window (up to CONTEXT_CHARS each), for the redactor. */
  readonly before: string
  readonly after: string
  readonly total: number
  /** Where the next window starts, or null after the last one. */
  readonly nextOffset: number | null
}

/**
 * The 16 KiB window of output at byte `offset`. The slice must cover the window and CONTEXT_BYTES on
 * each side (as far as the output reaches). An offset inside a character starts at the next one; an
 * offset at or past the end gives an empty window with no next. `beforeBytes`: how far before the
 * window the context reaches (further than CONTEXT_BYTES when the window may start inside a long
 * multi-line secret; the slice must then reach that far back).
 */
export const outputWindow = (slice: OutputSlice, offset: number, beforeBytes: number = CONTEXT_BYTES): OutputWindow => {
  const { base, bytes, total } = slice
  if (offset >= total) return { offset, text: "", before: "", after: "", total, nextOffset: null }
  const start = boundaryAtOrAfter(bytes, offset - base)
  const end = start + WINDOW_BYTES >= bytes.length ? bytes.length : boundaryAtOrBefore(bytes, start + WINDOW_BYTES)
  const ctxStart = boundaryAtOrAfter(bytes, start - beforeBytes)
  const ctxEnd = boundaryAtOrBefore(bytes, end + CONTEXT_BYTES)
  const absoluteEnd = base + end
  return {
    offset: base + start,
    text: fromUtf8(bytes.subarray(start, end)),
    // A wider reach is for block characters, one byte each: as many characters as bytes.
    before: lastChars(fromUtf8(bytes.subarray(ctxStart, start)), beforeBytes > CONTEXT_BYTES ? beforeBytes : CONTEXT_CHARS),
    after: firstChars(fromUtf8(bytes.subarray(end, ctxEnd)), CONTEXT_CHARS),
    total,
    nextOffset: absoluteEnd < total ? absoluteEnd : null
  }
}

/**
 * Cuts the string values of a JSON tree so that together they hold at most `maxBytes` of UTF-8
 * (in document order); keys and shape are kept. Reports whether anything was cut.
 */
export const cutJsonStrings = <A>(value: A, maxBytes: number = TEXT_LIMIT_BYTES): { readonly value: A; readonly truncated: boolean } => {
  let budget = maxBytes
  let truncated = false
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") {
      const cut = cutUtf8(v, budget)
      budget -= utf8Length(cut.text)
      truncated ||= cut.truncated
      return cut.text
    }
    if (Array.isArray(v)) return v.map(walk)
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, walk(x)]))
    }
    return v
  }
  const out = walk(value) as A
  return { value: out, truncated }
}
