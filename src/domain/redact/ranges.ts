/** Spans to mask: merged, then replaced by the mask. */
import { MASK } from "./mask.ts"

export interface Span {
  readonly start: number
  readonly end: number
}

/** Sorted, non-overlapping spans; spans that overlap or touch become one. */
export const mergeSpans = (spans: ReadonlyArray<Span>): ReadonlyArray<Span> => {
  if (spans.length === 0) return []
  const sorted = [...spans].filter((s) => s.end > s.start).sort((a, b) => a.start - b.start || b.end - a.end)
  const out: Array<{ start: number; end: number }> = []
  for (const s of sorted) {
    const last = out[out.length - 1]
    if (last !== undefined && s.start <= last.end) last.end = Math.max(last.end, s.end)
    else out.push({ start: s.start, end: s.end })
  }
  return out
}

/**
 * `text[from, to)` with every merged span that overlaps it, clipped to `[from, to)`, replaced by one
 * mask. `merged` must come from `mergeSpans`.
 */
export const applySpans = (text: string, merged: ReadonlyArray<Span>, from = 0, to = text.length): string => {
  let out = ""
  let at = from
  for (const s of merged) {
    if (s.end <= from) continue
    if (s.start >= to) break
    const start = Math.max(s.start, from)
    out += text.slice(at, start) + MASK
    at = Math.min(s.end, to)
  }
  return at === from ? text.slice(from, to) : out + text.slice(at, to)
}
