/**
 * A search for many short literals at once, ASCII case-insensitive, in one pass over the text.
 *
 * Why not a regex: the literals the redactor looks for start with almost every letter, so a regex
 * alternation (even written as a trie) gets no quick skip and tries its whole trie at every
 * position, which made two such scans most of the redactor's time. Here each position costs one
 * look-up in a bit table of the first three characters of every literal (folded to lower case),
 * kept as a rolling 21-bit number; at the few positions it passes, the literals starting with
 * those three characters are compared in full.
 *
 * Case folding is ASCII only, as a `/i` regex without the `u` flag does: no character above
 * U+007F folds to an ASCII letter (`ſ`, the Kelvin sign), so they never match.
 */

/** Bits of the hashed table of four-character starts (64 KiB). */
const FOUR_BITS = 1 << 19
/** A hash of three folded characters `t` (21 bits) and a fourth `c`, below `FOUR_BITS`. */
const fourHash = (t: number, c: number): number => (Math.imul((t << 7) | (c | 0), 0x9e3779b1) >>> 13) & (FOUR_BITS - 1)

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
  // Every first three characters of a literal (folded; for a literal of two, each third
  // character, end of text included), as one bit per possible three: most places in a text cost
  // one look-up of this table and nothing more. Then the ids of the literals that start with
  // those three, longest first.
  const three = new Uint8Array((1 << 21) / 8)
  const byThree = new Map<number, Array<number>>()
  const add = (t: number, id: number): void => {
    three[t >> 3]! |= 1 << (t & 7)
    byThree.set(t, [...(byThree.get(t) ?? []), id])
  }
  lower.forEach((l, id) => {
    const pair = (l.charCodeAt(0) << 14) | (l.charCodeAt(1) << 7)
    if (l.length > 2) add(pair | l.charCodeAt(2), id)
    else for (let c = 0; c < 128; c++) add(pair | c, id)
  })
  const candidates = new Map<number, Int32Array>(
    [...byThree].map(([t, ids]) => [t, Int32Array.from(ids.sort((x, y) => lower[y]!.length - lower[x]!.length))])
  )
  // A second filter on the fourth character: with hundreds of literals, common three-letter
  // starts (`con`, `ent`, `ion`) pass the first table at most places in a text, but their
  // literals' fourth character rarely follows. `short`: the threes that have a literal of three
  // characters or fewer (those need no fourth); `four`: a hashed bit table of every longer
  // literal's first four characters (a false pass costs only the full comparison).
  const short = new Uint8Array((1 << 21) / 8)
  const four = new Uint8Array(FOUR_BITS / 8)
  lower.forEach((l) => {
    const pair = (l.charCodeAt(0) << 14) | (l.charCodeAt(1) << 7)
    if (l.length <= 3) {
      if (l.length === 3) short[(pair | l.charCodeAt(2)) >> 3]! |= 1 << ((pair | l.charCodeAt(2)) & 7)
      else for (let c = 0; c < 128; c++) short[(pair | c) >> 3]! |= 1 << ((pair | c) & 7)
    } else {
      const h = fourHash(pair | l.charCodeAt(2), l.charCodeAt(3))
      four[h >> 3]! |= 1 << (h & 7)
    }
  })

  /** The literals found at `at`, whose first three characters (7 bits each) are `t`. */
  const check = (text: string, at: number, t: number, hit: (id: number, at: number) => void): void => {
    const ids = candidates.get(t)!
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k]!
      const l = lower[id]!
      if (at + l.length > text.length) continue
      let j = l.length < 3 ? 2 : 3
      while (j < l.length && FOLD[text.charCodeAt(at + j)] === l.charCodeAt(j)) j++
      if (j === l.length) hit(id, at)
    }
  }

  const search = (text: string, hit: (id: number, at: number) => void, from = 0): void => {
    const n = text.length
    if (n - from < 2) return
    // The last three characters read, 7 bits each.
    let t = (FOLD[text.charCodeAt(from)]! << 7) | FOLD[text.charCodeAt(from + 1)]!
    for (let i = from + 2; i < n; i++) {
      t = ((t << 7) | FOLD[text.charCodeAt(i)]!) & 0x1fffff
      if ((three[t >> 3]! & (1 << (t & 7))) === 0) continue
      if ((short[t >> 3]! & (1 << (t & 7))) === 0) {
        const h = fourHash(t, FOLD[text.charCodeAt(i + 1)]!) // NaN past the end: FOLD[NaN] is undefined, `| 0` below
        if ((four[h >> 3]! & (1 << (h & 7))) === 0) continue
      }
      check(text, i - 2, t, hit)
    }
    // The last two characters, followed by nothing (only a literal of two can be there).
    t = (t << 7) & 0x1fffff
    if ((three[t >> 3]! & (1 << (t & 7))) !== 0) check(text, n - 2, t, hit)
  }
  return { literals: lower, search }
}
