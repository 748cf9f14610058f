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
 *
 * A literal may carry conditions its caller would check first at every hit (its case as written,
 * a word start, the character after it): checked here, in the loop, they cost a comparison instead
 * of a call, and most hits of a short literal (`ac` in every `back`, `00` in every `100`) end there.
 */

/** Bits of the direct table of three-character starts (256 KiB): every three folded characters, 7 bits each. */
const THREE_BITS = 1 << 21

/** Bits of the hashed table of four-character starts (64 KiB). */
const FOUR_BITS = 1 << 19
/** A hash of three folded characters `t` (21 bits) and a fourth `c`, below `FOUR_BITS`. */
const fourHash = (t: number, c: number): number => (Math.imul((t << 7) | (c | 0), 0x9e3779b1) >>> 13) & (FOUR_BITS - 1)

/** Per UTF-16 code unit: its lower-case ASCII code, or 0 for anything outside ASCII (and NUL). */
const FOLD = new Uint8Array(65536)
for (let c = 1; c < 128; c++) FOLD[c] = c >= 65 && c <= 90 ? c | 0x20 : c

/** A literal to look for, and the conditions a place must meet besides holding it (folded). */
export interface LiteralSpec {
  readonly literal: string
  /** Only in the case written (base64 forms, a rule's `AKIA`). */
  readonly cased?: boolean
  /**
   * Not where the character before and the literal's first are both word characters (`[A-Za-z0-9_]`):
   * where a regex's leading `\b` cannot hold.
   */
  readonly wordStart?: boolean
  /** ASCII characters, one of which must follow the literal (compared as written, not folded). */
  readonly follow?: string
  /** How many characters of `follow` must follow, at least (1 unless told). */
  readonly followCount?: number
}

export interface LiteralSearch {
  /** The literals, lower case, by id. */
  readonly literals: ReadonlyArray<string>
  /** The literals with their conditions, by id. */
  readonly specs: ReadonlyArray<LiteralSpec>
  /** The id of each literal given, in the order given (literals given twice share one). */
  readonly given: ReadonlyArray<number>
  /**
   * Calls `hit(id, at)` for every literal found at every position (overlapping ones too), in order
   * of position, and at one position longer literals first. `from`: where to start.
   */
  readonly search: (text: string, hit: (id: number, at: number) => void, from?: number) => void
  /**
   * The same hits as `search`, collected: `hits[2k]` the id, `hits[2k + 1]` the position, for
   * `k < count`. The hot loop then calls nothing: a callback there (a new closure at every scan)
   * kept sending V8's optimized loop back to the interpreter ("wrong call target"), which made the
   * same search take 47 ms on one run and 80 ms on the next (8 MB, `scripts/bench-redactor.ts`).
   */
  readonly find: (text: string, from?: number) => Hits
}

/** Hits of one search, in order of position (longer literals first at one position). */
export interface Hits {
  readonly count: number
  /** Pairs: the literal's id, then its position. */
  readonly hits: Int32Array
}

/**
 * The UTF-16 code units of `text` as an array. One copy (native, ~1 ms for 8 MB) so that the loop
 * reads one kind of array: `charCodeAt` there costs more on a slice of a larger string (what
 * `String.slice` returns) and on a mix of one- and two-byte strings, and which kinds a process has
 * seen changed the loop's speed by a fifth between runs.
 */
const codeUnits = (text: string): Uint16Array => {
  const b = Buffer.from(text, "utf16le")
  if (LITTLE_ENDIAN && b.byteOffset % 2 === 0) return new Uint16Array(b.buffer, b.byteOffset, text.length)
  const codes = new Uint16Array(text.length)
  for (let i = 0; i < text.length; i++) codes[i] = text.charCodeAt(i)
  return codes
}
/** A `Uint16Array` over UTF-16LE bytes reads the code units only on a little-endian machine. */
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1

const isWordCode = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95

/** One literal with its conditions as the loop reads them. */
const specKey = (s: LiteralSpec): string =>
  JSON.stringify([s.cased === true ? s.literal : s.literal.toLowerCase(), s.cased === true, s.wordStart === true, s.follow === undefined ? null : [...new Set(s.follow)].sort().join(""), s.follow === undefined ? 0 : s.followCount ?? 1])

/**
 * The search for `literals` (ASCII, at least 2 characters each). A plain string is a literal with
 * no condition; literals of the same text and conditions are one.
 */
export const makeLiteralSearch = (literals: ReadonlyArray<string | LiteralSpec>): LiteralSearch => {
  const byKey = new Map<string, LiteralSpec>()
  const keys: Array<string> = []
  for (const l of literals) {
    const spec: LiteralSpec = typeof l === "string" ? { literal: l } : l
    if (spec.literal.length < 2 || /[^\x01-\x7f]/.test(spec.literal)) throw new Error(`not a searchable literal: ${JSON.stringify(spec.literal)}`)
    if (spec.follow !== undefined && (spec.follow.length === 0 || /[^\x01-\x7f]/.test(spec.follow))) throw new Error(`not a set of ASCII characters to follow ${JSON.stringify(spec.literal)}: ${JSON.stringify(spec.follow)}`)
    if (spec.followCount !== undefined && (spec.follow === undefined || !Number.isInteger(spec.followCount) || spec.followCount < 1)) throw new Error(`not a count of characters to follow ${JSON.stringify(spec.literal)}: ${spec.followCount}`)
    const key = specKey(spec)
    keys.push(key)
    if (!byKey.has(key)) byKey.set(key, spec)
  }
  const specs = [...byKey.values()]
  const idOfKey = new Map([...byKey.keys()].map((k, id) => [k, id] as const))
  const given = keys.map((k) => idOfKey.get(k)!)
  const lower = specs.map((s) => s.literal.toLowerCase())
  // The conditions by id: the exact spelling (or undefined), a word start, the characters that may follow (128 flags).
  const exact = specs.map((s) => (s.cased === true ? s.literal : undefined))
  const wordStart = specs.map((s) => s.wordStart === true)
  const follow = specs.map((s) => {
    if (s.follow === undefined) return undefined
    const flags = new Uint8Array(128)
    for (const c of s.follow) flags[c.charCodeAt(0)] = 1
    return flags
  })
  const followCount = specs.map((s) => s.followCount ?? 1)
  const conditioned = specs.map((s) => s.cased === true || s.wordStart === true || s.follow !== undefined)
  // Every literal by its first three characters (7 bits each, folded), in a direct bit table of
  // every three (256 KiB): one look-up per position, no hash. A literal of two stands under each
  // three it starts (128 of them; only those its `follow` allows, when it has one), so one table
  // serves both. A hashed table of 8 KiB that stays in the first-level cache, probed beside a
  // table of pairs, took twice as long on the machines measured here (scripts/bench-redactor.ts):
  // its hash and its second probe cost more than the misses of the larger table, whose passes are
  // rare (about 6% of positions in agent transcripts).
  const threes = new Uint8Array(THREE_BITS / 8)
  const byThree = new Map<number, Array<number>>()
  // Literals of two, by their pair: for the last two characters of a text, which start no three.
  const byPair = new Map<number, Array<number>>()
  const add = (t: number, id: number) => {
    threes[t >> 3]! |= 1 << (t & 7)
    byThree.set(t, [...(byThree.get(t) ?? []), id])
  }
  // What may stand after each literal (folded), when its conditions say: a literal of two then
  // stands only under the threes its pair and those characters make, and a literal of three gets
  // the second filter on them.
  const after = specs.map((s) => (s.follow === undefined ? undefined : [...new Set([...s.follow].map((c) => FOLD[c.charCodeAt(0)]!))]))
  lower.forEach((l, id) => {
    const pair = (l.charCodeAt(0) << 7) | l.charCodeAt(1)
    if (l.length === 2) {
      const next = after[id]
      if (next === undefined) byPair.set(pair, [...(byPair.get(pair) ?? []), id])
      for (const c of next ?? Array.from({ length: 128 }, (_, c) => c)) add((pair << 7) | c, id)
    } else add((pair << 7) | l.charCodeAt(2), id)
  })
  const longestFirst = (m: Map<number, Array<number>>) =>
    new Map<number, Int32Array>([...m].map(([t, ids]) => [t, Int32Array.from(ids.sort((x, y) => lower[y]!.length - lower[x]!.length))]))
  const candidates = longestFirst(byThree)
  const pairCandidates = longestFirst(byPair)
  // A second filter on the fourth character: with hundreds of literals, common three-letter
  // starts (`con`, `ent`, `ion`) pass the first table at many places in a text, but their
  // literals' fourth character rarely follows. `short`: the threes that start a literal of three
  // characters or fewer (those need no fourth), a direct bit table like `threes`; `four`: a hashed
  // bit table of every longer literal's first four characters (a false pass costs only the full
  // comparison).
  const short = new Uint8Array(THREE_BITS / 8)
  const four = new Uint8Array(FOUR_BITS / 8)
  for (const [t, ids] of candidates) {
    if (ids.some((id) => lower[id]!.length === 2 || (lower[id]!.length === 3 && after[id] === undefined))) short[t >> 3]! |= 1 << (t & 7)
  }
  lower.forEach((l, id) => {
    const next = after[id]
    if (l.length === 3 && next !== undefined) {
      const t = (l.charCodeAt(0) << 14) | (l.charCodeAt(1) << 7) | l.charCodeAt(2)
      for (const c of next) { const h = fourHash(t, c); four[h >> 3]! |= 1 << (h & 7) }
    }
    if (l.length < 4) return
    const t = (l.charCodeAt(0) << 14) | (l.charCodeAt(1) << 7) | l.charCodeAt(2)
    const h = fourHash(t, l.charCodeAt(3))
    four[h >> 3]! |= 1 << (h & 7)
  })

  /** Whether the conditions of literal `id` (found folded at `at`, `length` long) hold there. */
  const holds = (text: string, at: number, id: number, length: number): boolean => {
    if (wordStart[id] && at > 0 && isWordCode(text.charCodeAt(at - 1)) && isWordCode(text.charCodeAt(at))) return false
    const f = follow[id]
    if (f !== undefined) {
      for (let k = at + length, end = k + followCount[id]!; k < end; k++) {
        const c = text.charCodeAt(k) // NaN past the end: no character follows
        if (!(c < 128) || f[c] === 0) return false
      }
    }
    const e = exact[id]
    return e === undefined || text.startsWith(e, at)
  }

  /** The hits so far of one `find`; grown by doubling. */
  interface Out { count: number; hits: Int32Array }

  /** Adds the literals of `ids` found at `at`, whose first `known` characters are known to match, to `out`. */
  const check = (text: string, codes: Uint16Array, at: number, ids: Int32Array, known: number, out: Out): void => {
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k]!
      const l = lower[id]!
      if (at + l.length > codes.length) continue
      let j = known < l.length ? known : l.length
      while (j < l.length && FOLD[codes[at + j]!] === l.charCodeAt(j)) j++
      if (j !== l.length || (conditioned[id] && !holds(text, at, id, l.length))) continue
      if (2 * out.count + 2 > out.hits.length) {
        const grown = new Int32Array(out.hits.length * 2)
        grown.set(out.hits)
        out.hits = grown
      }
      out.hits[2 * out.count] = id
      out.hits[2 * out.count + 1] = at
      out.count++
    }
  }

  const find = (text: string, from = 0): Hits => {
    const out: Out = { count: 0, hits: new Int32Array(64) }
    const n = text.length
    if (n - from < 2) return out
    const codes = codeUnits(text)
    // The last three characters read, 7 bits each.
    let t = (FOLD[codes[from]!]! << 7) | FOLD[codes[from + 1]!]!
    for (let i = from + 2; i < n; i++) {
      t = ((t << 7) | FOLD[codes[i]!]!) & 0x1fffff
      if ((threes[t >> 3]! & (1 << (t & 7))) === 0) continue
      if ((short[t >> 3]! & (1 << (t & 7))) === 0) {
        const h4 = fourHash(t, i + 1 < n ? FOLD[codes[i + 1]!]! : 0) // past the end no fourth: 0 starts no literal
        if ((four[h4 >> 3]! & (1 << (h4 & 7))) === 0) continue
      }
      check(text, codes, i - 2, candidates.get(t)!, 3, out)
    }
    // The last two characters, followed by nothing (only a literal of two can be there).
    const last = pairCandidates.get(t & 0x3fff)
    if (last !== undefined) check(text, codes, n - 2, last, 2, out)
    return out
  }

  const search = (text: string, hit: (id: number, at: number) => void, from = 0): void => {
    const { count, hits } = find(text, from)
    for (let k = 0; k < count; k++) hit(hits[2 * k]!, hits[2 * k + 1]!)
  }
  return { literals: lower, specs, given, search, find }
}
