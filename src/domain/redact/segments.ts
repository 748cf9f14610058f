/**
 * Consecutive `message.text` events masked as one text (docs/REFERENCE.md).
 *
 * Mapping: the parts are joined, with up to `CONTEXT_CHARS` of the stored text just before them
 * (`before`, its end; further back inside a multi-line block, see `reach.ts`) and just after them (`after`, its start). The joined text is scanned once;
 * overlapping and touching spans are merged. Part `i` covers `[from_i, to_i)` of the joined text,
 * and is returned as its own text with every merged span that overlaps `[from_i, to_i)`, clipped to
 * it, replaced by one mask. So a secret split over parts is masked in every part that holds a piece
 * of it: each piece becomes a mask, a part wholly inside a secret becomes exactly the mask, and a
 * part no span touches is returned unchanged (an empty part stays empty). The number and order of
 * parts never change. `liveEdge` applies to the end of the joined text, `after` included.
 */
import type { ExactSecrets } from "./exact.ts"
import { applySpans, mergeSpans } from "./ranges.ts"
import { CONTEXT_CHARS, contextBefore } from "./reach.ts"
import { scan } from "./scan.ts"

export { CONTEXT_CHARS } from "./reach.ts"

export interface SegmentOptions {
  readonly before?: string | undefined
  readonly after?: string | undefined
  readonly liveEdge?: boolean | undefined
}

export const redactSegments = (
  parts: ReadonlyArray<string>,
  options: SegmentOptions,
  secrets: ExactSecrets
): ReadonlyArray<string> => {
  const before = contextBefore(options.before ?? "")
  const after = (options.after ?? "").slice(0, CONTEXT_CHARS)
  // One array join gives a flat string; `a + b + c` gives a rope that V8 reads far more slowly.
  const joined = [before, ...parts, after].join("")
  const merged = mergeSpans(scan(joined, options.liveEdge ?? false, secrets))
  if (merged.length === 0) return [...parts]
  let at = before.length
  return parts.map((part) => {
    const from = at
    at += part.length
    return applySpans(joined, merged, from, at)
  })
}
