/**
 * The search for the registered secrets' variants (`exact.ts`) in a text: at every position, the
 * longest variant that starts there; and at the live edge, the longest end of the text that starts
 * a variant.
 *
 * Why not one regex alternation of the variants: each registered key has some thirty variants
 * (its forms and its body's) that share no start, so the alternation tries all of them at almost
 * every position; with the client keys registered as the daemon sees them, ten keys made masking
 * about twenty times slower (`scripts/bench-keys.ts`).
 *
 * Variants of `LONG` characters or more (every form of a bridge key, of the metrics token, of most
 * Hermes keys) are found with Wu–Manber's shift table: the three characters that end a window of
 * `LONG` say how far the window may move before a variant could start in it (up to `LONG - 2`
 * characters at a time); only where it may not move are the variants whose first `LONG`
 * characters have that window's hash compared in full. The few shorter variants (a short Hermes
 * key) are found with a rolling hash of `WINDOW` characters tried at every position.
 */

/** Every variant is at least this long (`MIN_SECRET_LENGTH`). */
export const WINDOW = 6
/** Variants at least this long are found by the shift table. */
const LONG = 16
const BLOCK = 3
const MAX_SHIFT = LONG - BLOCK + 1
/** At the live edge, the shortest start of a variant that is masked at the end of the text. */
const MIN_LIVE_PREFIX = 4
const SLOT_BITS = 20
const BLOCK_BITS = 15

/** A rolling hash of the last `WINDOW` characters: 5 bits a character, 30 kept, so a character leaves it after `WINDOW` more. */
const step = (h: number, c: number): number => ((h << 5) ^ c) & 0x3fffffff
const slot = (h: number): number => Math.imul(h, 0x9e3779b1) >>> (32 - SLOT_BITS)
const blockAt = (s: string, end: number): number =>
  (Math.imul((s.charCodeAt(end - 3) << 10) ^ (s.charCodeAt(end - 2) << 5) ^ s.charCodeAt(end - 1), 0x9e3779b1) >>> (32 - BLOCK_BITS))
/** The hash of `s`'s first `n` characters (`n` characters from `at`). */
const prefixHash = (s: string, at: number, n: number): number => {
  let h = 0
  for (let i = at; i < at + n; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0
  return h
}

export interface ExactSearch {
  /** Calls `hit(start, end)` for the longest variant starting at each position where one does (not in order). */
  readonly each: (text: string, hit: (start: number, end: number) => void) => void
  /** The length of the longest end of `text`, 4 characters or more, that starts a variant without being all of it; else 0. */
  readonly liveTail: (text: string) => number
}

const group = <K>(values: ReadonlyArray<string>, key: (v: string) => K): Map<K, Array<string>> => {
  const out = new Map<K, Array<string>>()
  for (const v of values) {
    const k = key(v)
    const same = out.get(k)
    if (same === undefined) out.set(k, [v])
    else same.push(v)
  }
  return out
}

/** The variants of `LONG` characters or more, by Wu–Manber (see the module comment). */
const longSearch = (variants: ReadonlyArray<string>) => {
  const shift = new Uint8Array(1 << BLOCK_BITS).fill(MAX_SHIFT)
  for (const v of variants) {
    for (let end = BLOCK; end <= LONG; end++) {
      const b = blockAt(v, end)
      shift[b] = Math.min(shift[b]!, LONG - end)
    }
  }
  const byPrefix = group(variants, (v) => prefixHash(v, 0, LONG))
  return (text: string, hit: (start: number, end: number) => void): void => {
    let end = LONG
    while (end <= text.length) {
      // Written out, not `blockAt`: that one also reads the variants (sliced and flat strings) as
      // the table is built, and the type feedback it gathers there made this loop 3-4 times slower.
      const s = shift[Math.imul((text.charCodeAt(end - 3) << 10) ^ (text.charCodeAt(end - 2) << 5) ^ text.charCodeAt(end - 1), 0x9e3779b1) >>> (32 - BLOCK_BITS)]!
      if (s > 0) {
        end += s
        continue
      }
      const start = end - LONG
      const found = byPrefix.get(prefixHash(text, start, LONG))?.find((v) => text.startsWith(v, start))
      if (found !== undefined) hit(start, start + found.length)
      end += 1
    }
  }
}

/** The shorter variants, by a rolling hash tried at every position. */
const shortSearch = (variants: ReadonlyArray<string>) => {
  const table = new Uint8Array(1 << SLOT_BITS)
  const byHash = group(variants, (v) => {
    let h = 0
    for (let i = 0; i < WINDOW; i++) h = step(h, v.charCodeAt(i))
    table[slot(h)] = 1
    return h
  })
  return (text: string, hit: (start: number, end: number) => void): void => {
    let h = 0
    for (let i = 0; i < WINDOW - 1 && i < text.length; i++) h = step(h, text.charCodeAt(i))
    for (let end = WINDOW - 1; end < text.length; end++) {
      h = step(h, text.charCodeAt(end))
      if (table[slot(h)] === 0) continue
      const start = end - WINDOW + 1
      const found = byHash.get(h)?.find((v) => text.startsWith(v, start))
      if (found !== undefined) hit(start, start + found.length)
    }
  }
}

export const makeExactSearch = (variants: ReadonlyArray<string>): ExactSearch => {
  // Longest first in every group, so the first found at a position is the longest there.
  const kept = [...new Set(variants)].filter((v) => v.length >= WINDOW).sort((a, b) => b.length - a.length)
  const long = kept.filter((v) => v.length >= LONG)
  const short = kept.filter((v) => v.length < LONG)
  const searches = [...(long.length > 0 ? [longSearch(long)] : []), ...(short.length > 0 ? [shortSearch(short)] : [])]
  const byStart = group(kept, (v) => prefixHash(v, 0, MIN_LIVE_PREFIX))
  const longest = kept[0]?.length ?? 0
  const each: ExactSearch["each"] = (text, hit) => {
    if (searches.length === 1) return searches[0]!(text, hit)
    if (searches.length === 0) return
    // A long and a short variant may start at one position: report the long one there.
    const longAt = new Set<number>()
    searches[0]!(text, (start, end) => {
      longAt.add(start)
      hit(start, end)
    })
    searches[1]!(text, (start, end) => {
      if (!longAt.has(start)) hit(start, end)
    })
  }
  const liveTail: ExactSearch["liveTail"] = (text) => {
    // Longest end first: the first end that starts a variant is the answer.
    for (let at = Math.max(0, text.length - (longest - 1)); at <= text.length - MIN_LIVE_PREFIX; at++) {
      const starting = byStart.get(prefixHash(text, at, MIN_LIVE_PREFIX))
      if (starting === undefined) continue
      const tail = text.slice(at)
      if (starting.some((v) => v.length > tail.length && v.startsWith(tail))) return tail.length
    }
    return 0
  }
  return { each, liveTail }
}
