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

/** Bits of the hashed table of three-character starts (8 KiB). */
const THREE_BITS = 1 << 16
/** A hash of three folded characters `t` (21 bits), below `THREE_BITS`. */
const threeHash = (t: number): number => Math.imul(t, 0x9e3779b1) >>> 16

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
  // Literals of two characters, by their pair (7 bits each): a bit table of 2 KiB. Longer ones by
  // their first three: a hashed bit table of 8 KiB. Both stay in the first-level cache, which a
  // direct table of every three (256 KiB) did not: its misses were most of the search's time. A
  // false pass of the hashed table costs a look-up of the three, which finds no literal.
  const pairs = new Uint8Array((1 << 14) / 8)
  const threes = new Uint8Array(THREE_BITS / 8)
  const byPair = new Map<number, Array<number>>()
  const byThree = new Map<number, Array<number>>()
  lower.forEach((l, id) => {
    const pair = (l.charCodeAt(0) << 7) | l.charCodeAt(1)
    if (l.length === 2) {
      pairs[pair >> 3]! |= 1 << (pair & 7)
      byPair.set(pair, [...(byPair.get(pair) ?? []), id])
    } else {
      const t = (pair << 7) | l.charCodeAt(2)
      const h = threeHash(t)
      threes[h >> 3]! |= 1 << (h & 7)
      byThree.set(t, [...(byThree.get(t) ?? []), id])
    }
  })
  const longestFirst = (m: Map<number, Array<number>>) =>
    new Map<number, Int32Array>([...m].map(([t, ids]) => [t, Int32Array.from(ids.sort((x, y) => lower[y]!.length - lower[x]!.length))]))
  const candidates = longestFirst(byThree)
  const pairCandidates = longestFirst(byPair)
  // A second filter on the fourth character: with hundreds of literals, common three-letter
  // starts (`con`, `ent`, `ion`) pass the first table at most places in a text, but their
  // literals' fourth character rarely follows. `short`: the threes (hashed as above) that have a
  // literal of three characters (those need no fourth); `four`: a hashed bit table of every longer
  // literal's first four characters (a false pass costs only the full comparison).
  const short = new Uint8Array(THREE_BITS / 8)
  const four = new Uint8Array(FOUR_BITS / 8)
  lower.forEach((l) => {
    if (l.length < 3) return
    const t = (l.charCodeAt(0) << 14) | (l.charCodeAt(1) << 7) | l.charCodeAt(2)
    if (l.length === 3) {
      const h = threeHash(t)
      short[h >> 3]! |= 1 << (h & 7)
    } else {
      const h = fourHash(t, l.charCodeAt(3))
      four[h >> 3]! |= 1 << (h & 7)
    }
  })

  /** The literals of `ids` found at `at`, whose first `known` characters are known to match. */
  const check = (text: string, at: number, ids: Int32Array, known: number, hit: (id: number, at: number) => void): void => {
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k]!
      const l = lower[id]!
      if (at + l.length > text.length) continue
      let j = known
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
      const h = threeHash(t)
      if ((threes[h >> 3]! & (1 << (h & 7))) !== 0) {
        let pass = true
        if ((short[h >> 3]! & (1 << (h & 7))) === 0) {
          const h4 = fourHash(t, FOLD[text.charCodeAt(i + 1)]!) // NaN past the end: FOLD[NaN] is undefined, `| 0` in the hash
          pass = (four[h4 >> 3]! & (1 << (h4 & 7))) !== 0
        }
        if (pass) {
          const ids = candidates.get(t)
          if (ids !== undefined) check(text, i - 2, ids, 3, hit)
        }
      }
      const p = t >> 7
      if ((pairs[p >> 3]! & (1 << (p & 7))) !== 0) check(text, i - 2, pairCandidates.get(p)!, 2, hit)
    }
    // The last two characters, followed by nothing (only a literal of two can be there).
    const p = t & 0x3fff
    if ((pairs[p >> 3]! & (1 << (p & 7))) !== 0) check(text, n - 2, pairCandidates.get(p)!, 2, hit)
  }
  return { literals: lower, search }
}
