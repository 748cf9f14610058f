/**
 * A search for many short literals at once, ASCII case-insensitive, in one pass over the text.
 *
 * Why not a regex: the literals the redactor looks for start with almost every letter, so a regex
 * alternation (even written as a trie) gets no quick skip and tries its whole trie at every
 * position, which made two such scans most of the redactor's time. Here each position costs one
 * look-up in a bit table of every literal's anchor (its rarest three characters, `anchors.ts`,
 * folded to lower case), kept as a rolling 21-bit number; at the few positions it passes, the
 * literals anchored there are compared in full. A literal anchored past its start is found a few
 * characters late, so hits are held back that far and handed on in order.
 *
 * The text is read as a copy of its UTF-16 code units in a typed array (one native copy, about
 * 1 ms for 8 MB): reading a string one code unit at a time costs twice that per character when
 * the string is a slice of another or two-byte, and the loop stays one compiled shape for every
 * kind of string it is given.
 *
 * Case folding is ASCII only, as a `/i` regex without the `u` flag does: no character above
 * U+007F folds to an ASCII letter (`ſ`, the Kelvin sign), so they never match.
 *
 * A literal may carry conditions its caller would check first at every hit (its case as written,
 * a word start, the character after it): checked here, in the loop, they cost a comparison instead
 * of a call, and most hits of a short literal (`ac` in every `back`, `00` in every `100`) end there.
 */
import { anchorOf, positionsOf, threesAt } from "./anchors.ts"

/** Bits of the direct table of three-character starts (256 KiB): every three folded characters, 7 bits each. */
const THREE_BITS = 1 << 21

/** Bits of the hashed table of four-character starts (64 KiB). */
const FOUR_BITS = 1 << 19
/** A hash of three folded characters `t` (21 bits) and a fourth `c`, below `FOUR_BITS`. */
const fourHash = (t: number, c: number): number => (Math.imul((t << 7) | (c | 0), 0x9e3779b1) >>> 13) & (FOUR_BITS - 1)

/** The slot of three `t` in a table of `2 ** bits` slots. */
const slotOf = (t: number, bits: number): number => Math.imul(t, 0x9e3779b1) >>> (32 - bits)

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

/** The UTF-16 code units of `text`, as they are (lone surrogates too). */
const codesOf = (text: string): Uint16Array => {
  if (LITTLE_ENDIAN) {
    const b = Buffer.from(text, "utf16le")
    if (b.byteOffset % 2 === 0) return new Uint16Array(b.buffer, b.byteOffset, text.length)
  }
  const out = new Uint16Array(text.length)
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i)
  return out
}

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
  /** The offset of each literal's anchor from its start, by id (`anchors.ts`). */
  readonly anchors: ReadonlyArray<number>
  /**
   * Calls `hit(id, at)` for every literal found at every position (overlapping ones too), in order
   * of position, and at one position longer literals first. `from`: where to start.
   */
  readonly search: (text: string, hit: (id: number, at: number) => void, from?: number) => void
}

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
  const lowerCodes = lower.map((l) => Uint8Array.from(l, (c) => c.charCodeAt(0)))
  const exact = specs.map((s) => (s.cased === true ? Uint16Array.from(s.literal, (c) => c.charCodeAt(0)) : undefined))
  const wordStart = specs.map((s) => s.wordStart === true)
  const follow = specs.map((s) => {
    if (s.follow === undefined) return undefined
    const flags = new Uint8Array(128)
    for (const c of s.follow) flags[c.charCodeAt(0)] = 1
    return flags
  })
  const followCount = specs.map((s) => s.followCount ?? 1)
  // Every literal under the three characters it is anchored at (`anchors.ts`: its rarest three,
  // at most `MAX_ANCHOR` from its start, the characters it wants after it included), 7 bits each,
  // folded, in a direct bit table of every three (256 KiB): one look-up per position, no hash. A
  // literal of two with nothing after it stands under each three it starts (128 of them). A hashed
  // table of 8 KiB that stays in the first-level cache, probed beside a table of pairs, took twice
  // as long on the machines measured here (scripts/bench-redactor.ts): its hash and its second
  // probe cost more than the misses of the larger table, whose passes are rare.
  const threes = new Uint8Array(THREE_BITS / 8)
  // A second filter on the character after the anchor: common threes pass the first table at many
  // places, but the character their literals want next rarely follows. `short`: the threes of an
  // anchor with nothing wanted after it, a direct bit table like `threes`; `four`: a hashed bit
  // table of every other anchor and the character after it (a false pass costs only a comparison).
  const short = new Uint8Array(THREE_BITS / 8)
  const four = new Uint8Array(FOUR_BITS / 8)
  const byThree = new Map<number, Array<number>>() // three -> id * 16 + offset of its anchor
  // Literals of two with nothing after them, by their pair: for the last two characters of a text.
  const byPair = new Map<number, Array<number>>()
  const anchors = specs.map((s, id) => {
    const pos = positionsOf(s.literal, s.follow, followCount[id]!)
    const k = anchorOf(pos)
    const next = pos[k + 3]
    threesAt(pos, k, (t) => {
      threes[t >> 3]! |= 1 << (t & 7)
      byThree.set(t, [...(byThree.get(t) ?? []), id * 16 + k])
      if (next === undefined) short[t >> 3]! |= 1 << (t & 7)
      else for (const c of next) { const h = fourHash(t, c); four[h >> 3]! |= 1 << (h & 7) }
    })
    if (lower[id]!.length === 2 && s.follow === undefined) {
      const pair = (lowerCodes[id]![0]! << 7) | lowerCodes[id]![1]!
      byPair.set(pair, [...(byPair.get(pair) ?? []), id])
    }
    return k
  })
  // How far before its anchor a literal may start: a hit is held back until no later anchor can
  // find one before it (or at its place and longer), so hits still come in order.
  const reorder = Math.max(0, ...anchors)
  // The literals under each three, in an open-addressing table of typed arrays (a Map's look-up
  // cost more than the rest of a pass): `slotKey` the three (or -1), `slotFrom`/`slotTo` its
  // entries in `entryId`/`entryOffset`.
  const slotBits = Math.max(4, Math.ceil(Math.log2(byThree.size * 2 + 1)))
  const slotMask = (1 << slotBits) - 1
  const slotKey = new Int32Array(1 << slotBits).fill(-1)
  const slotFrom = new Int32Array(1 << slotBits)
  const slotTo = new Int32Array(1 << slotBits)
  const entryCount = [...byThree.values()].reduce((n, e) => n + e.length, 0)
  const entryId = new Int32Array(entryCount)
  const entryOffset = new Int32Array(entryCount)
  let filled = 0
  for (const [t, entries] of byThree) {
    let s = slotOf(t, slotBits)
    while (slotKey[s] !== -1) s = (s + 1) & slotMask
    slotKey[s] = t
    slotFrom[s] = filled
    for (const e of entries) {
      entryId[filled] = e >> 4
      entryOffset[filled++] = e & 15
    }
    slotTo[s] = filled
  }
  const pairCandidates = new Map([...byPair].map(([p, ids]) => [p, Int32Array.from(ids)] as const))

  /** Whether literal `id` and its conditions hold at `at` of `codes` (`n` long). */
  const holds = (codes: Uint16Array, n: number, at: number, id: number): boolean => {
    const l = lowerCodes[id]!
    const length = l.length
    if (at + length > n) return false
    for (let j = 0; j < length; j++) if (FOLD[codes[at + j]!] !== l[j]) return false
    if (wordStart[id] && at > 0 && isWordCode(codes[at - 1]!) && isWordCode(codes[at]!)) return false
    const f = follow[id]
    if (f !== undefined) {
      const end = at + length + followCount[id]!
      if (end > n) return false
      for (let k = at + length; k < end; k++) {
        const c = codes[k]!
        if (c >= 128 || f[c] === 0) return false
      }
    }
    const e = exact[id]
    if (e !== undefined) for (let j = 0; j < length; j++) if (codes[at + j] !== e[j]) return false
    return true
  }

  const search = (text: string, hit: (id: number, at: number) => void, from = 0): void => {
    const n = text.length
    if (n - from < 2) return
    const codes = codesOf(text)
    // Hits held back (see `reorder`), in order of position, longer first, then by id.
    const heldAt: Array<number> = []
    const heldId: Array<number> = []
    let head = 0
    const hold = (id: number, at: number): void => {
      let j = heldAt.length
      heldAt.push(at)
      heldId.push(id)
      const length = lowerCodes[id]!.length
      while (j > head) {
        const a = heldAt[j - 1]!
        const b = heldId[j - 1]!
        const before = a < at || (a === at && (lowerCodes[b]!.length > length || (lowerCodes[b]!.length === length && b < id)))
        if (before) break
        heldAt[j] = a
        heldId[j] = b
        j--
      }
      heldAt[j] = at
      heldId[j] = id
    }
    /** Hands on the hits held back that start at or before `upTo`. */
    const release = (upTo: number): void => {
      while (head < heldAt.length && heldAt[head]! <= upTo) {
        const at = heldAt[head]!
        const id = heldId[head++]!
        hit(id, at)
      }
      if (head === heldAt.length) {
        heldAt.length = 0
        heldId.length = 0
        head = 0
      }
    }
    // The last three characters read, 7 bits each.
    let t = (FOLD[codes[from]!]! << 7) | FOLD[codes[from + 1]!]!
    for (let i = from + 2; i < n; i++) {
      t = ((t << 7) | FOLD[codes[i]!]!) & 0x1fffff
      if ((threes[t >> 3]! & (1 << (t & 7))) === 0) continue
      if ((short[t >> 3]! & (1 << (t & 7))) === 0) {
        const h4 = fourHash(t, i + 1 < n ? FOLD[codes[i + 1]!]! : 0)
        if ((four[h4 >> 3]! & (1 << (h4 & 7))) === 0) continue
      }
      // No anchor from here on can find a hit that starts before this.
      if (head < heldAt.length) release(i - 3 - reorder)
      let s = slotOf(t, slotBits)
      while (slotKey[s] !== t) s = (s + 1) & slotMask
      for (let e = slotFrom[s]!, end = slotTo[s]!; e < end; e++) {
        const at = i - 2 - entryOffset[e]!
        const id = entryId[e]!
        if (at >= from && holds(codes, n, at, id)) hold(id, at)
      }
    }
    // The last two characters, followed by nothing (only a literal of two can be there).
    const last = pairCandidates.get(t & 0x3fff)
    if (last !== undefined) for (const id of last) if (holds(codes, n, n - 2, id)) hold(id, n - 2)
    release(n)
  }
  return { literals: lower, specs, given, anchors, search }
}
