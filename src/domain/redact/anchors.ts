/**
 * Where the literal search (`literals.ts`) anchors each literal: the three characters of it (or of
 * the characters its conditions want after it) that ordinary text holds least often.
 *
 * Why: the search looks every position's last three characters up in a table of anchors, and
 * every place that passes costs a look-up and a comparison. Anchored at their first three
 * characters, the rules' literals passed at every `con`, `---` (of `-----begin `), `sts`, `ion`,
 * `fin`: about one position in seventeen of an agent's transcript. Anchored at their rarest three
 * (`-be`, `egi`), most of those places never pass.
 *
 * How rare: a static score, the product of each character's share of ordinary text (English prose
 * and code, case folded; `SHARE`), with a penalty for a character repeated (`---`, `000`: runs are
 * far more common than the product says). Static, so the anchors do not depend on the text
 * searched, and a text unlike the one scored costs only passes, never a hit missed.
 */

/** The furthest from a literal's first character its anchor may start (hits are reordered that far). */
export const MAX_ANCHOR = 8
/** How many of the characters a literal's `follow` wants may be part of its anchor. */
const FOLLOW_POSITIONS = 2
/** The most threes one anchor may stand for (a window over a class of what follows). */
const MAX_COMBOS = 1024
/** A character that repeats the one before it counts as this much more common than the product says. */
const REPEAT = 10

/** Rough shares (per cent) of folded ASCII characters in English prose and source code; others 0.05. */
const SHARE: Readonly<Record<string, number>> = {
  " ": 15, e: 9, t: 7, a: 6, o: 6, i: 6, n: 6, s: 6, r: 6, h: 3.5, l: 3.5, d: 3, c: 3, u: 2.5, m: 2.2,
  f: 2, p: 2, g: 1.8, w: 1.5, y: 1.5, b: 1.3, v: 1, k: 0.7, x: 0.3, j: 0.2, q: 0.1, z: 0.1,
  "0": 1, "1": 1, "2": 0.6, "3": 0.5, "4": 0.5, "5": 0.5, "6": 0.4, "7": 0.4, "8": 0.4, "9": 0.4,
  "\n": 2, ".": 1.5, ",": 1, "(": 1, ")": 1, '"': 1, "'": 0.5, ":": 0.7, ";": 0.5, "=": 0.7, "-": 0.7,
  _: 0.5, "/": 0.5, "{": 0.5, "}": 0.5, "[": 0.3, "]": 0.3, "<": 0.2, ">": 0.2, "*": 0.2, "\t": 0.3
}
const share = new Float64Array(128).fill(0.05)
for (const [c, s] of Object.entries(SHARE)) share[c.charCodeAt(0)] = s

/** ASCII lower case of code `c` (below 128). */
export const foldCode = (c: number): number => (c >= 65 && c <= 90 ? c | 0x20 : c)

/** Every code below 128: what may stand after a literal of two with no condition (the end of a three). */
export const ANY: ReadonlyArray<number> = Array.from({ length: 128 }, (_, c) => c)

/**
 * The folded codes that may stand at each position of a literal's match: its characters, then up
 * to `FOLLOW_POSITIONS` of the characters `follow` wants after it. A literal of two with nothing
 * after it gets `ANY` third, so that every anchor is three positions wide.
 */
export const positionsOf = (literal: string, follow: string | undefined, followCount: number): ReadonlyArray<ReadonlyArray<number>> => {
  const out: Array<ReadonlyArray<number>> = [...literal].map((c) => [foldCode(c.charCodeAt(0))])
  if (follow !== undefined) {
    const set = [...new Set([...follow].map((c) => foldCode(c.charCodeAt(0))))].sort((a, b) => a - b)
    for (let k = 0; k < Math.min(followCount, FOLLOW_POSITIONS); k++) out.push(set)
  }
  if (out.length === 2) out.push(ANY)
  return out
}

const combos = (pos: ReadonlyArray<ReadonlyArray<number>>, k: number): number => pos[k]!.length * pos[k + 1]!.length * pos[k + 2]!.length

/** The score of the three positions from `k` (lower is rarer). */
const score = (pos: ReadonlyArray<ReadonlyArray<number>>, k: number): number => {
  let s = 1
  for (let j = k; j < k + 3; j++) {
    const set = pos[j]!
    let w = 0
    for (const c of set) w += share[c]!
    const prev = pos[j - 1]
    s *= j > k && set.length === 1 && prev !== undefined && prev.length === 1 && prev[0] === set[0] ? w * REPEAT : w
  }
  return s
}

/**
 * The offset of the anchor of a literal with these positions: the rarest three positions from
 * offset 0 to `MAX_ANCHOR` that still leave a fourth after them (the search's second filter reads
 * the character after the anchor), and stand for at most `MAX_COMBOS` threes. The first three when
 * there are only three.
 */
export const anchorOf = (pos: ReadonlyArray<ReadonlyArray<number>>): number => {
  let best = 0
  let bestScore = score(pos, 0)
  for (let k = 1; k <= Math.min(MAX_ANCHOR, pos.length - 4); k++) {
    if (combos(pos, k) > MAX_COMBOS) continue
    const s = score(pos, k)
    if (s < bestScore) {
      best = k
      bestScore = s
    }
  }
  return best
}

/** Calls `each(t)` for every three (7 bits a folded character) that the positions from `k` stand for. */
export const threesAt = (pos: ReadonlyArray<ReadonlyArray<number>>, k: number, each: (t: number) => void): void => {
  for (const a of pos[k]!) for (const b of pos[k + 1]!) for (const c of pos[k + 2]!) each((a << 14) | (b << 7) | c)
}
