/**
 * How many characters a regex source can match, at least and at most: used to know how far before
 * a keyword in the middle of a rule's regex (`[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk`) its match can
 * start. Reads the syntax the rules use (escapes, classes, groups, alternation, quantifiers,
 * anchors and look-arounds, which match nothing). A prefix that stops inside a group counts only
 * the branch it stops in. `max` is Infinity for an unbounded repeat.
 */

export interface Width {
  readonly min: number
  readonly max: number
}

const ZERO: Width = { min: 0, max: 0 }
const ONE: Width = { min: 1, max: 1 }

/** The width of `src` (a whole regex, or a prefix of one that may stop inside groups). */
export const widthOf = (src: string): Width => {
  let i = 0
  const atom = (): Width => {
    const c = src[i]!
    if (c === "\\") {
      const n = src[i + 1]
      i += n === "x" ? 4 : n === "u" ? 6 : 2
      return n === "b" || n === "B" ? ZERO : ONE
    }
    if (c === "[") {
      i++
      if (src[i] === "]") i++
      while (i < src.length && src[i] !== "]") i += src[i] === "\\" ? 2 : 1
      i++
      return ONE
    }
    if (c === "(") {
      i++
      const look = /^\?<?[=!]/.exec(src.slice(i, i + 3))
      if (look !== null) i += look[0].length
      else if (src.startsWith("?:", i)) i += 2
      else if (src.startsWith("?<", i)) i = src.indexOf(">", i) + 1
      const w = alternatives()
      const closed = src[i] === ")"
      if (closed) i++
      return look !== null && closed ? ZERO : w
    }
    i++
    return c === "^" || c === "$" ? ZERO : ONE
  }
  const quantified = (w: Width): Width => {
    const c = src[i]
    let lo: number
    let hi: number
    if (c === "?") [lo, hi] = [0, 1]
    else if (c === "*") [lo, hi] = [0, Infinity]
    else if (c === "+") [lo, hi] = [1, Infinity]
    else {
      const m = c === "{" ? /^\{(\d+)(,(\d*))?\}/.exec(src.slice(i)) : null
      if (m === null) return w
      lo = Number(m[1])
      hi = m[2] === undefined ? lo : m[3] === "" ? Infinity : Number(m[3])
      i += m[0].length - 1
    }
    i++
    if (src[i] === "?") i++
    return { min: w.min * lo, max: w.max === 0 ? 0 : w.max * hi }
  }
  const sequence = (): Width => {
    let min = 0
    let max = 0
    while (i < src.length && src[i] !== "|" && src[i] !== ")") {
      const w = quantified(atom())
      min += w.min
      max += w.max
    }
    return { min, max }
  }
  const alternatives = (): Width => {
    let w = sequence()
    while (src[i] === "|") {
      i++
      const next = sequence()
      // A prefix that stops in this branch: only the branch counts.
      w = i >= src.length ? next : { min: Math.min(w.min, next.min), max: Math.max(w.max, next.max) }
    }
    return w
  }
  let total = alternatives()
  while (i < src.length) {
    i++ // a stray `)`
    const more = alternatives()
    total = { min: total.min + more.min, max: total.max + more.max }
  }
  return total
}
