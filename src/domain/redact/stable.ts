/**
 * Idempotence: `text(text(x)) === text(x)`. One scan is not always enough, because a mask changes
 * what is next to it: a token glued to a name (`<token>--token x`) leaves `--token x` once masked,
 * and a mask that swallowed the `&` ending a value lets the value run on (`password://u:&@`).
 * and a value cut short by an escape (`HF_TOKEN=\rk_live_…`) runs on once the escape is masked.
 * All need a mask with something other than white space, a quote or a bracket next to it.
 *
 * So the line around each such span (at most `REACH` characters each side, which covers how far a
 * rule looks from its trigger) is scanned again as it reads once masked, and whatever is found there
 * is masked too; this repeats until a round finds nothing new. Findings that touch an edge of a
 * window cut inside a line are dropped, as the cut made them. The windows are built from the input
 * with their masks applied, so the masked text is only assembled once, at the end.
 */
import type { Finding } from "./findings.ts"
import { MASK } from "./mask.ts"
import type { Span } from "./ranges.ts"
import { applySpans, mergeSpans } from "./ranges.ts"

/** How far from a mask a rule may look (a value up to 4096 characters and its name). */
const REACH = 4096 + 256
const MAX_ROUNDS = 4
/** Before and after a mask, these leave nothing glued to it. */
const LOOSE_BEFORE = /[\s"'`([{<,;]/
const LOOSE_AFTER = /[\s"'`)\]}>,;]/

const isGlued = (text: string, s: Span): boolean =>
  (s.start > 0 && !LOOSE_BEFORE.test(text[s.start - 1]!)) || (s.end < text.length && !LOOSE_AFTER.test(text[s.end]!))

type Scan = (text: string, liveEdge: boolean) => ReadonlyArray<Finding>

/** A piece of a masked window: input text as is, or a span replaced by the mask. */
interface Piece {
  readonly at: number // where it starts in the window
  readonly length: number
  readonly from: number // where it starts in the input
  readonly to: number // where it ends in the input
  readonly masked: boolean
}

/** `text[w.start, w.end)` with the (merged, sorted) spans masked, and how it maps back. */
const maskedWindow = (text: string, spans: ReadonlyArray<Span>, w: Span): { window: string; pieces: Array<Piece> } => {
  const pieces: Array<Piece> = []
  let at = 0
  let from = w.start
  const add = (to: number, masked: boolean): void => {
    const length = masked ? MASK.length : to - from
    if (length > 0) pieces.push({ at, length, from, to, masked })
    at += length
    from = to
  }
  for (const s of spans) {
    if (s.end <= w.start || s.start >= w.end) continue
    add(Math.max(s.start, w.start), false)
    add(Math.min(s.end, w.end), true)
  }
  add(w.end, false)
  return { window: applySpans(text, spans, w.start, w.end), pieces }
}

/** Input position of window position `p`; inside a mask, its start or end. */
const toInput = (pieces: ReadonlyArray<Piece>, p: number, side: "start" | "end"): number => {
  // The piece holding p: for a start, the one with at <= p < at + length; for an end, at < p <= at + length.
  let lo = 0
  let hi = pieces.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    const piece = pieces[mid]!
    const past = side === "start" ? p >= piece.at + piece.length : p > piece.at + piece.length
    if (past) lo = mid + 1
    else hi = mid
  }
  const piece = pieces[lo]
  if (piece === undefined) return 0
  if (piece.masked) return side === "start" ? piece.from : piece.to
  return Math.min(piece.to, piece.from + Math.max(0, p - piece.at))
}

/** The line around `span`, at most `REACH` characters each side. */
const around = (text: string, span: Span): Span => {
  const from = Math.max(0, span.start - REACH)
  const start = from + text.slice(from, span.start).lastIndexOf("\n") + 1
  const nl = text.slice(span.end, span.end + REACH).indexOf("\n")
  return { start: Math.max(start, from), end: nl < 0 ? Math.min(text.length, span.end + REACH) : span.end + nl }
}

/** True when `span` lies inside one of `spans` (sorted, disjoint). */
const inside = (spans: ReadonlyArray<Span>, span: Span): boolean => {
  let lo = 0
  let hi = spans.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const s = spans[mid]!
    if (s.end <= span.start) lo = mid + 1
    else if (s.start > span.start) hi = mid - 1
    else return span.end <= s.end
  }
  return false
}

/** Spans found, once `spans` are masked, near those followed by something glued to them. */
const nearGlued = (text: string, spans: ReadonlyArray<Span>, liveEdge: boolean, scan: Scan): Array<Span> => {
  const glued = spans.filter((s) => isGlued(text, s))
  const found: Array<Span> = []
  for (const w of mergeSpans(glued.map((s) => around(text, s)))) {
    const cutStart = w.start > 0 && text[w.start - 1] !== "\n"
    const cutEnd = w.end < text.length && text[w.end] !== "\n"
    const { window, pieces } = maskedWindow(text, spans, w)
    for (const f of scan(window, liveEdge && w.end === text.length)) {
      if ((cutStart && f.start === 0) || (cutEnd && f.end === window.length)) continue
      const span = { start: toInput(pieces, f.start, "start"), end: toInput(pieces, f.end, "end") }
      if (span.end > span.start && !inside(spans, span)) found.push(span)
    }
  }
  return found
}

/** `text` masked until masking again would change nothing. */
export const maskStable = (text: string, liveEdge: boolean, scan: Scan): string => {
  const first = scan(text, liveEdge)
  if (first.length === 0) return text
  let spans = mergeSpans(first)
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const more = nearGlued(text, spans, liveEdge, scan)
    if (more.length === 0) break
    spans = mergeSpans([...spans, ...more])
  }
  return applySpans(text, spans)
}
