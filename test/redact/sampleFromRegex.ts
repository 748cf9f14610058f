/**
 * A random string that a regex matches, for the corpus generated from the format rules' own
 * regexes (`ruleCorpus.ts`). Reads the subset of JavaScript regex syntax the rules use: literals and
 * escapes, classes (ranges, negation, `\d\w\s`), groups (capturing, non-capturing, named),
 * alternation, quantifiers (greedy and lazy), anchors, look-arounds (a positive one produces what
 * it wants to see, a negative one nothing: the caller checks the sample against the real regex),
 * and back-references.
 *
 * Choices lean towards what a real secret looks like: an alternative that matches the empty
 * string (`$` in a terminator group) is taken most often, so the sample ends where the token ends; a
 * lazy or optional prefix is left out; a repeated class gets its least count plus a few.
 */
import type { Rng } from "./corpus.ts"

type Node =
  | { readonly t: "chars"; readonly set: string }
  | { readonly t: "seq"; readonly items: ReadonlyArray<Node> }
  | { readonly t: "alt"; readonly options: ReadonlyArray<Node> }
  | { readonly t: "group"; readonly index: number | undefined; readonly body: Node }
  | { readonly t: "repeat"; readonly body: Node; readonly min: number; readonly max: number; readonly lazy: boolean }
  | { readonly t: "backref"; readonly index: number }
  | { readonly t: "empty" }
  | { readonly t: "boundary" }

const PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join("")
const range = (a: string, b: string): string => {
  let s = ""
  for (let c = a.charCodeAt(0); c <= b.charCodeAt(0); c++) s += String.fromCharCode(c)
  return s
}
const DIGIT = range("0", "9")
const WORD = range("a", "z") + range("A", "Z") + DIGIT + "_"
const SPACE = " "
const ALNUM = range("a", "z") + range("A", "Z") + DIGIT
const except = (set: string): string => {
  const out = [...PRINTABLE].filter((c) => !set.includes(c)).join("")
  const alnum = [...out].filter((c) => ALNUM.includes(c)).join("")
  return alnum.length > 0 ? alnum : out
}

class Parser {
  i = 0
  groups = 0
  constructor(readonly src: string) {}

  parse(): Node {
    const n = this.alt()
    if (this.i < this.src.length) throw new Error(`unexpected ${this.src[this.i]} at ${this.i} in ${this.src}`)
    return n
  }

  private alt(): Node {
    const options = [this.seq()]
    while (this.src[this.i] === "|") {
      this.i++
      options.push(this.seq())
    }
    return options.length === 1 ? options[0]! : { t: "alt", options }
  }

  private seq(): Node {
    const items: Array<Node> = []
    while (this.i < this.src.length && this.src[this.i] !== "|" && this.src[this.i] !== ")") {
      const atom = this.atom()
      items.push(this.quantified(atom))
    }
    return { t: "seq", items }
  }

  private quantified(atom: Node): Node {
    const c = this.src[this.i]
    let min: number
    let max: number
    if (c === "?") [min, max] = [0, 1]
    else if (c === "*") [min, max] = [0, Infinity]
    else if (c === "+") [min, max] = [1, Infinity]
    else if (c === "{" && /^\{\d+(,\d*)?\}/.test(this.src.slice(this.i))) {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i))!
      min = Number(m[1])
      max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3])
      this.i += m[0].length - 1
    } else return atom
    this.i++
    const lazy = this.src[this.i] === "?"
    if (lazy) this.i++
    return { t: "repeat", body: atom, min, max, lazy }
  }

  private atom(): Node {
    const c = this.src[this.i]!
    if (c === "(") return this.group()
    if (c === "[") return this.klass()
    if (c === "\\") return this.escape(false) as Node
    this.i++
    if (c === "^" || c === "$") return { t: "empty" }
    if (c === ".") return { t: "chars", set: ALNUM }
    return { t: "chars", set: c }
  }

  private group(): Node {
    this.i++
    let index: number | undefined
    let skip = false
    if (this.src.startsWith("?:", this.i)) this.i += 2
    else if (/^\?<?[=!]/.test(this.src.slice(this.i))) {
      // A positive look-around produces what it wants to see (`(?<=[?&])sig=`); a negative one nothing.
      skip = this.src[this.i + (this.src[this.i + 1] === "<" ? 2 : 1)] === "!"
      this.i += this.src[this.i + 1] === "<" ? 3 : 2
    } else if (this.src.startsWith("?<", this.i)) {
      this.i = this.src.indexOf(">", this.i) + 1
      index = ++this.groups
    } else index = ++this.groups
    const body = this.alt()
    if (this.src[this.i] !== ")") throw new Error(`unclosed group in ${this.src}`)
    this.i++
    return skip ? { t: "empty" } : { t: "group", index, body }
  }

  /** An escape; in a class, the characters it stands for (or undefined for `\b`). */
  private escape(inClass: boolean): Node | string {
    const n = this.src[this.i + 1]!
    this.i += 2
    const chars = (set: string): Node | string => (inClass ? set : { t: "chars", set })
    switch (n) {
      case "d": return chars(DIGIT)
      case "w": return chars(WORD)
      case "s": return chars(SPACE)
      case "D": return chars(except(DIGIT))
      case "W": return chars(except(WORD))
      case "S": return chars(except(" \t\r\n"))
      case "n": return chars("\n")
      case "r": return chars("\r")
      case "t": return chars("\t")
      // A word boundary between two parts of a rule (`amplitude\b…\b[0-9a-f]{32}`): nothing or a
      // space, so some draws hold the boundary (the caller keeps only draws the regex matches).
      case "b": return inClass ? "\b" : { t: "boundary" }
      case "B": return inClass ? "\b" : { t: "empty" }
      case "x": {
        const h = this.src.slice(this.i, this.i + 2)
        this.i += 2
        return chars(String.fromCharCode(parseInt(h, 16)))
      }
      case "u": {
        const h = this.src.slice(this.i, this.i + 4)
        this.i += 4
        return chars(String.fromCharCode(parseInt(h, 16)))
      }
      default:
        if (!inClass && /[1-9]/.test(n)) return { t: "backref", index: Number(n) }
        return chars(n)
    }
  }

  private klass(): Node {
    this.i++
    const negated = this.src[this.i] === "^"
    if (negated) this.i++
    let set = ""
    let first = true
    while (this.i < this.src.length && (this.src[this.i] !== "]" || first)) {
      first = false
      let from: string
      if (this.src[this.i] === "\\") {
        const e = this.escape(true) as string
        if (e.length !== 1) {
          set += e
          continue
        }
        from = e
      } else from = this.src[this.i++]!
      if (this.src[this.i] === "-" && this.src[this.i + 1] !== "]" && this.i + 1 < this.src.length) {
        this.i++
        const to = this.src[this.i] === "\\" ? (this.escape(true) as string) : this.src[this.i++]!
        set += range(from, to)
      } else set += from
    }
    this.i++
    return { t: "chars", set: negated ? except(set) : set }
  }
}

const matchesEmpty = (n: Node): boolean => {
  switch (n.t) {
    case "empty": case "boundary": return true
    case "chars": return false
    case "seq": return n.items.every(matchesEmpty)
    case "alt": return n.options.some(matchesEmpty)
    case "group": return matchesEmpty(n.body)
    case "repeat": return n.min === 0 || matchesEmpty(n.body)
    case "backref": return true
  }
}

/** A random string `source` matches (or one the caller must check: look-arounds are ignored). */
export const sampleFromRegex = (source: string, rng: Rng): string => {
  const tree = new Parser(source).parse()
  const captured = new Map<number, string>()
  const gen = (n: Node): string => {
    switch (n.t) {
      case "empty": return ""
      case "boundary": return rng() < 0.5 ? " " : ""
      case "chars": {
        // Printable characters, white space only as a space.
        const set = [...n.set].filter((c) => c >= " " && c <= "~")
        const from = set.length > 0 ? set : [...n.set]
        return from[Math.floor(rng() * from.length)] ?? ""
      }
      case "seq": return n.items.map(gen).join("")
      case "alt": {
        const empty = n.options.find(matchesEmpty)
        if (empty !== undefined && rng() < 0.8) return gen(empty)
        return gen(n.options[Math.floor(rng() * n.options.length)]!)
      }
      case "group": {
        const s = gen(n.body)
        if (n.index !== undefined) captured.set(n.index, s)
        return s
      }
      case "repeat": {
        const extra = n.lazy || n.max === n.min ? 0 : Math.floor(rng() * Math.min(6, n.max - n.min + 1))
        const count = n.max === 1 && n.min === 0 ? 0 : n.min + extra
        let s = ""
        for (let k = 0; k < count; k++) s += gen(n.body)
        return s
      }
      case "backref": return captured.get(n.index) ?? ""
    }
  }
  return gen(tree)
}
