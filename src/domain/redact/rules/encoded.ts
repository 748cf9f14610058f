/**
 * A third-party credential written percent-encoded (`token%3Dghp_…`, `%22sk_live_…%22` in a query,
 * a whole `Authorization%3A%20Bearer%20…` header in a redirect URL), with characters written as
 * backslash escapes (`gh\u0070_…`, `\x70`: JSON, JavaScript, Python) or base64-encoded
 * (`echo -n "$TOKEN" | base64`). The redactor's own secrets have their encoded forms listed
 * (`exact.ts`); a third party's cannot be listed, so the run of text around an encoding is decoded
 * and the decoded text scanned again by every rule; what they find there is masked in the
 * encoded text.
 *
 * Bounded, so it stays cheap: a run is decoded only where the one pass found a trigger for it
 * (a `%XX` or `\u`/`\x` escape, or the base64 form of a token prefix or secret word, `base64Triggers`), at most
 * `MAX_RUN` characters, once per run, and the decoded text is not decoded again. Not covered:
 * base64 of a secret whose text has no trigger word or prefix (a bare password), base64 wrapped over
 * lines, double encodings, and encodings other than these two.
 */
import type { Finding } from "../findings.ts"

/** The longest run decoded (an encoded header or query holds far less; a data URI is not worth it). */
const MAX_RUN = 8192

/** Characters of a percent-encoded run: anything but white space, quotes and markup brackets. */
const isUrlCode = (c: number): boolean => c > 32 && c !== 34 && c !== 39 && c !== 96 && c !== 60 && c !== 62 && c < 127
const isBase64Code = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 43 || c === 47 || c === 45 || c === 95
const hexValue = (c: number): number => (c >= 48 && c <= 57 ? c - 48 : (c | 0x20) >= 97 && (c | 0x20) <= 102 ? (c | 0x20) - 87 : -1)

export type Rescan = (decoded: string, liveEdge: boolean) => ReadonlyArray<Finding>

/** The run of `isCode` characters around `at`, at most `MAX_RUN` long. */
const runAround = (text: string, at: number, isCode: (c: number) => boolean): { start: number; end: number } => {
  let start = at
  while (start > 0 && at - start < MAX_RUN / 2 && isCode(text.charCodeAt(start - 1))) start--
  let end = at
  while (end < text.length && end - start < MAX_RUN && isCode(text.charCodeAt(end))) end++
  return { start, end }
}

/** The literals that start a percent escape worth decoding (`%2…` to `%7…`: punctuation and letters). */
export const PERCENT_TRIGGERS: ReadonlyArray<string> = ["%2", "%3", "%4", "%5", "%6", "%7"]

/** The decoded character and the length of the escape at `i` (not past `end`), or undefined. */
type EscapeAt = (text: string, i: number, end: number) => { readonly char: string; readonly length: number } | undefined

/**
 * Decodes the run `[start, end)` with `escapeAt` and reports what the rules find in it, over the
 * encoded characters that hold them. `label`: how the finding's detail names the encoding.
 */
const decodeRun = (text: string, run: { start: number; end: number }, escapeAt: EscapeAt, liveEdge: boolean, rescan: Rescan, out: Array<Finding>, label: string): void => {
  // Decoded text, and for each of its characters where it starts in `text`.
  let decoded = ""
  const from: Array<number> = []
  let escapes = 0
  for (let i = run.start; i < run.end; ) {
    const e = escapeAt(text, i, run.end)
    from.push(i)
    if (e !== undefined) {
      decoded += e.char
      escapes++
      i += e.length
    } else {
      decoded += text[i]
      i++
    }
  }
  from.push(run.end)
  if (escapes === 0) return
  for (const f of rescan(decoded, liveEdge && run.end === text.length)) {
    out.push({ ...f, start: from[f.start]!, end: from[f.end]!, detail: `${f.detail}, ${label}` })
  }
}

const percentAt: EscapeAt = (text, i, end) => {
  const hi = text.charCodeAt(i) === 37 && i + 2 < end ? hexValue(text.charCodeAt(i + 1)) : -1
  const lo = hi >= 0 ? hexValue(text.charCodeAt(i + 2)) : -1
  return lo >= 0 ? { char: String.fromCharCode(hi * 16 + lo), length: 3 } : undefined
}

/**
 * Decodes the percent-encoded run around `at` and reports what the rules find in it. Returns where
 * the run ends (the caller skips triggers before it).
 */
export const percentRule = (text: string, at: number, liveEdge: boolean, rescan: Rescan, out: Array<Finding>): number => {
  const run = runAround(text, at, isUrlCode)
  decodeRun(text, run, percentAt, liveEdge, rescan, out, "percent-encoded")
  return run.end
}

/**
 * The literals that start a backslash escape of a character (`\u0070`, `\x70`): JSON, JavaScript
 * and Python write one letter of a token so (`gh\u0070_…`), as `encodeURIComponent` writes `%70`.
 */
export const ESCAPE_TRIGGERS: ReadonlyArray<string> = ["\\u", "\\x"]

const backslashAt: EscapeAt = (text, i, end) => {
  if (text.charCodeAt(i) !== 92) return undefined
  const n = text[i + 1]
  const digits = n === "u" ? 4 : n === "x" ? 2 : 0
  if (digits === 0 || i + 2 + digits > end) return undefined
  let code = 0
  for (let k = i + 2; k < i + 2 + digits; k++) {
    const h = hexValue(text.charCodeAt(k))
    if (h < 0) return undefined
    code = code * 16 + h
  }
  return { char: String.fromCharCode(code), length: 2 + digits }
}

/** Characters of a token and of the text just around it (`NAME=`, `user:`), and of an escape (`\`). */
const isTokenCode = (c: number): boolean =>
  (c >= 48 && c <= 58) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45 || c === 46 || c === 43 || c === 47 || c === 61 || c === 126 || c === 92

/**
 * Decodes the run of token characters and `\uXXXX` / `\xXX` escapes around `at` and reports what
 * the rules find in it. Only an escape of a token character (a letter, a digit, `_`, `-` …) starts
 * a run: JSON and source code are full of `\u003c` and `\x1b`, which hide no token. Returns where
 * the run ends.
 */
export const backslashRule = (text: string, at: number, liveEdge: boolean, rescan: Rescan, out: Array<Finding>): number => {
  const e = backslashAt(text, at, text.length)
  if (e === undefined || e.char === "\\" || !isTokenCode(e.char.charCodeAt(0))) return at + 1
  const run = runAround(text, at, isTokenCode)
  decodeRun(text, run, backslashAt, liveEdge, rescan, out, "escaped")
  return run.end
}

/** The base64 characters that depend on `literal` alone when it starts `offset` bytes into the encoded bytes. */
const base64Inner = (literal: string, offset: number): string => {
  const enc = Buffer.concat([Buffer.alloc(offset), Buffer.from(literal, "latin1")]).toString("base64")
  return enc.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + literal.length)) / 6))
}

/**
 * The base64 forms (standard and URL-safe, at each of the three byte offsets) of the token prefixes
 * and secret words given, at least 4 characters long. `literal`: the form, case as written (base64
 * is case-sensitive; the scan's search is not, so a hit is checked again).
 */
export const base64Triggers = (words: ReadonlyArray<string>): ReadonlyArray<string> => {
  const forms = new Set<string>()
  for (const w of words) {
    for (const offset of [0, 1, 2]) {
      const inner = base64Inner(w, offset)
      if (inner.length >= 4) {
        forms.add(inner)
        forms.add(inner.replace(/\+/g, "-").replace(/\//g, "_"))
      }
    }
  }
  return [...forms]
}

/** Printable text (and line breaks): what a decoded credential looks like, unlike random bytes. */
const isText = (s: string): boolean => /^[\x20-\x7e\t\r\n]*$/.test(s)

/**
 * Decodes the base64 run around `at` (where `form`, one of `base64Triggers`, was found) and
 * reports, over the encoded characters that hold them, what the rules find in it. Each of the
 * three alignments of the run is tried, as the run may start anywhere in the encoded bytes'
 * groups of three. Returns where the run ends.
 */
export const base64Rule = (text: string, at: number, form: string, rescan: Rescan, out: Array<Finding>): number => {
  if (!text.startsWith(form, at)) return at + 1 // base64 is case-sensitive (the scan's search checks it too)
  const run = runAround(text, at, isBase64Code)
  const encoded = text.slice(run.start, run.end).replace(/-/g, "+").replace(/_/g, "/")
  for (const skip of [0, 1, 2, 3]) {
    const usable = encoded.slice(skip, skip + Math.floor((encoded.length - skip) / 4) * 4)
    if (usable.length < 8) continue
    const decoded = Buffer.from(usable, "base64").toString("latin1")
    if (!isText(decoded)) continue
    const found = rescan(decoded, false)
    for (const f of found) {
      const start = run.start + skip + Math.floor(f.start / 3) * 4
      const end = run.start + skip + Math.min(usable.length, Math.ceil(f.end / 3) * 4)
      out.push({ ...f, start, end, detail: `${f.detail}, base64-encoded` })
    }
    if (found.length > 0) break
  }
  return run.end
}
