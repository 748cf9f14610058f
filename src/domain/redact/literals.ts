/**
 * A search for many short literals at once, ASCII case-insensitive, in one pass over the text.
 *
 * Why not a regex: the literals the redactor looks for start with almost every letter, so a regex
 * alternation (even written as a trie) gets no quick skip and tries its whole trie at every
 * position, which made two such scans most of the redactor's time. Here each position costs two
 * table look-ups: the pair of characters at it (folded to lower case) indexes a table of the
 * literals starting with that pair, and only those few are compared in full.
 *
 * Case folding is ASCII only, as a `/i` regex without the `u` flag does: no character above
 * U+007F folds to an ASCII letter (`ſ`, the Kelvin sign), so they never match.
 */

/** Per UTF-16 code unit: its lower-case ASCII code, or 0 for anything outside ASCII (and NUL). */
const FOLD = new Uint8Array(65536)
for (let c = 1; c < 128; c++) FOLD[c] = c >= 65 && c <= 90 ? c | 0x20 : c

export interface LiteralSearch {
  /** The literals, lower case, by id. */
  readonly literals: ReadonlyArray<string>
  /**
   * Calls `hit(id, at)` for every literal found at every position (overlapping ones too), in order
   * of position, and at one position longer literals first. `from`: where to start.
   */
  readonly search: (text: string, hit: (id: number, at: number) => void, from?: number) => void
}

/** The search for `literals` (ASCII, at least 2 characters each; duplicates are one literal). */
export const makeLiteralSearch = (literals: ReadonlyArray<string>): LiteralSearch => {
  const lower = [...new Set(literals.map((l) => l.toLowerCase()))]
  for (const l of lower) {
    if (l.length < 2 || /[^\x01-\x7f]/.test(l)) throw new Error(`not a searchable literal: ${JSON.stringify(l)}`)
  }
  // Ids by their first two characters, longest first; `start[pair]..start[pair + 1]` in `ids`.
  const byPair = new Map<number, Array<number>>()
  lower.forEach((l, id) => {
    const pair = (l.charCodeAt(0) << 7) | l.charCodeAt(1)
    byPair.set(pair, [...(byPair.get(pair) ?? []), id])
  })
  const start = new Int32Array(128 * 128 + 1)
  const ids: Array<number> = []
  for (let pair = 0; pair < 128 * 128; pair++) {
    start[pair] = ids.length
    ids.push(...(byPair.get(pair) ?? []).sort((a, b) => lower[b]!.length - lower[a]!.length))
  }
  start[128 * 128] = ids.length
  const idList = Int32Array.from(ids)
  // The third characters any literal of a pair has (every one, end of text included, when a
  // literal of the pair is only two long): most pairs found in text go no further than this bit.
  const third = new Uint8Array((128 * 128 * 128) / 8)
  const allow = (t: number): void => { third[t >> 3]! |= 1 << (t & 7) }
  for (const l of lower) {
    const pair = (l.charCodeAt(0) << 7) | l.charCodeAt(1)
    if (l.length > 2) allow((pair << 7) | l.charCodeAt(2))
    else for (let c = 0; c < 128; c++) allow((pair << 7) | c)
  }

  const search = (text: string, hit: (id: number, at: number) => void, from = 0): void => {
    const n = text.length
    if (n - from < 2) return
    let next = FOLD[text.charCodeAt(from)]!
    for (let i = from; i < n - 1; i++) {
      const c0 = next
      next = FOLD[text.charCodeAt(i + 1)]!
      // No literal holds NUL, so a pair with a character outside ASCII (folded to 0) has none.
      const pair = (c0 << 7) | next
      if (start[pair] === start[pair + 1]) continue
      const t = (pair << 7) | (i + 2 < n ? FOLD[text.charCodeAt(i + 2)]! : 0)
      if ((third[t >> 3]! & (1 << (t & 7))) === 0) continue
      const to = start[pair + 1]!
      for (let k = start[pair]!; k < to; k++) {
        const id = idList[k]!
        const l = lower[id]!
        if (i + l.length > n) continue
        let j = 2
        while (j < l.length && FOLD[text.charCodeAt(i + j)] === l.charCodeAt(j)) j++
        if (j === l.length) hit(id, i)
      }
    }
  }
  return { literals: lower, search }
}
