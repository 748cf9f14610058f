/**
 * Searches that stop at a limit. A rule looks at a bounded neighbourhood of its trigger, so a long
 * text with many triggers (one-line JSON, a minified file) is still scanned in linear time.
 */

/** Index of `needle` in `text[from, limit)`, or -1. */
export const indexWithin = (text: string, needle: string, from: number, limit: number): number => {
  if (from >= limit) return -1
  const i = text.slice(from, Math.min(limit + needle.length - 1, text.length)).indexOf(needle)
  return i < 0 || from + i + needle.length > limit ? -1 : from + i
}

/**
 * End of the line that holds `from`, but not past `limit`. With `runs`, the newline found is
 * remembered, so many triggers on one long line cost one search.
 */
export const lineEndWithin = (text: string, from: number, limit: number, runs?: RunCache): number => {
  const nl = runs === undefined ? indexWithin(text, "\n", from, limit) : runs.next(text, "\n", from)
  return nl < 0 || nl > limit ? Math.min(limit, text.length) : nl
}

/**
 * Runs of one character class, remembered per scan: a run is maximal, so every start inside a run
 * found before ends where that run ends (`sk-sk-sk-…` costs one pass, not one per trigger).
 */
export class RunCache {
  private readonly runs = new Map<RegExp, { start: number; end: number }>()
  private readonly found = new Map<string, { from: number; at: number }>()

  /** Index of the first `needle` at or after `from`, or -1. */
  next(text: string, needle: string, from: number): number {
    const known = this.found.get(needle)
    if (known !== undefined && from >= known.from && (known.at < 0 || from <= known.at)) return known.at
    const at = text.indexOf(needle, from)
    this.found.set(needle, { from, at })
    return at
  }

  /** End of the run of `chars` characters from `from`. */
  end(text: string, from: number, chars: RegExp): number {
    const known = this.runs.get(chars)
    if (known !== undefined && from >= known.start && from < known.end) return known.end
    let i = from
    while (i < text.length && chars.test(text[i]!)) i++
    this.runs.set(chars, { start: from, end: i })
    return i
  }
}
