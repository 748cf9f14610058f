/**
 * The triggers of a gitleaks-shaped rule, read from its regex source: the literal every match holds
 * at a known place (`Trigger`), where the match starts from it, and the conditions the regex puts on
 * that place before any attempt (its case, `\\b`, the class after the literal: `classAt`, gitleaks'
 * assignment: `assignmentAhead`). `gitleaks.ts` applies the rules from these.
 */
import type { GitleaksRule } from "./data.ts"
import { type Width, widthOf } from "./width.ts"

/** How far before its keyword a match may start, for rules not of the "name = value" kind. */
const LEAD = 12
/** How a "name = value" rule's regex starts: up to 50 name characters before its keyword. */
export const NAME_PREFIX = "[\\w.-]{0,50}?"

/**
 * A trigger: a literal that every match of a rule holds at a known place. From the rule's own
 * regex where it starts with literal text (`\\b(ghp_…`, `(?:hvs\\.…|s\\.…)`): the match starts at
 * the trigger, and the case written there must match (`SK…`, `ey…`). Else the rule's keyword, with
 * the "name = value" or `LEAD` reach before it.
 */
export interface Trigger {
  readonly rule: number
  /** Lower case. */
  readonly literal: string
  /** The exact spelling, when the rule's regex wants that case; else undefined. */
  readonly exact: string | undefined
  /** The match starts at the trigger. */
  readonly atStart: boolean
  /** The rule's regex starts with `\\b`: a trigger after a letter or digit cannot start a match. */
  readonly wordStart: boolean
  /** The scan looks for it (see `GITLEAKS_LITERALS`). */
  readonly scanned: boolean
  /** Unless `atStart`: how far before the trigger the match starts, at least and at most. */
  readonly lead: Width
  /** When `atStart`: the characters the regex wants right after the literal (`followCount` of them at least), if it says. */
  readonly follow?: { readonly chars: string; readonly count: number }
  /** When `atStart`: the regex goes on after the literal with gitleaks' assignment (`ASSIGNMENT`). */
  readonly assignment: boolean
}

const LEAD_WIDTH: Width = { min: 0, max: LEAD }
const AT_START: Width = { min: 0, max: 0 }
/** The furthest before its keyword a match may start for the keyword to be looked for. */
const MAX_KEYWORD_LEAD = 256

/** The pattern that finds `keyword` spelled in a regex source, in either case or as classes of both cases. */
const keywordPattern = (keyword: string, flags: string): RegExp => {
  const letter = (c: string) => `(?:${c}|\\[${c}${c.toUpperCase()}\\]|\\[${c.toUpperCase()}${c}\\])`
  const pattern = [...keyword].map((c) => (/[a-z]/.test(c) ? letter(c) : `\\\\?${c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`)).join("")
  return new RegExp(pattern, flags)
}

/**
 * Where a keyword that stands in the middle of a rule's regex (`…{29}_mmk`, `\.(?:atlasv1)\.`)
 * lies from the start of the match, for each place the regex spells it (a keyword may stand in
 * two branches: `AccountKey` and `…[_\s.-]*key` of Azure's storage key). A place with a bounded
 * width before it gives that width; a place after an unbounded repeat gives its least width
 * (the match that leaves the optional prefix out, which starts latest). Undefined when no place
 * has a bounded width before it, or the keyword starts the regex.
 */
const keywordLeads = (src: string, keyword: string): ReadonlyArray<Width> | undefined => {
  const leads: Array<Width> = []
  let bounded = false
  for (const m of src.matchAll(keywordPattern(keyword, "gi"))) {
    const at = m.index
    if (at <= 0 || src[at - 1] === "\\") continue
    const w = widthOf(src.slice(0, at))
    if (w.max <= MAX_KEYWORD_LEAD) bounded = true
    const lead = w.max <= MAX_KEYWORD_LEAD ? w : { min: w.min, max: w.min }
    if (!leads.some((l) => l.min === lead.min && l.max === lead.max)) leads.push(lead)
  }
  // Furthest first, so that the positions tried for one hit go left to right (`triedTo`).
  return bounded ? leads.sort((a, b) => b.max - a.max) : undefined
}

/** One literal character of a regex source at `i` (`a`, `\\.`, `[aA]`), or undefined. */
const literalAt = (src: string, i: number): { readonly lower: string; readonly exact: boolean; readonly length: number } | undefined => {
  const c = src[i]
  if (c === undefined) return undefined
  if (c === "\\") {
    const n = src[i + 1] ?? ""
    return /[.\-_/:~]/.test(n) ? { lower: n, exact: true, length: 2 } : undefined
  }
  if (c === "[") {
    const m = /^\[([a-zA-Z])([a-zA-Z])\]/.exec(src.slice(i, i + 4))
    return m !== null && m[1]!.toLowerCase() === m[2]!.toLowerCase() && m[1] !== m[2] ? { lower: m[1]!.toLowerCase(), exact: false, length: 4 } : undefined
  }
  if (/[A-Za-z0-9_\-~:/=]/.test(c)) return { lower: c.toLowerCase(), exact: true, length: 1 }
  return undefined
}

/** The literal that starts at `i`, read up to the first non-literal (and not past a quantifier); `end`: where it stopped. */
const leadingLiteral = (src: string, i: number): { readonly lower: string; readonly exact: string | undefined; readonly end: number } => {
  let lower = ""
  let exact = ""
  let allExact = true
  for (;;) {
    const l = literalAt(src, i)
    if (l === undefined) break
    const q = src[i + l.length]
    if (q === "?" || q === "*" || q === "{") break // this character is optional or repeated
    lower += l.lower
    exact += l.exact ? src[i + l.length - 1] : l.lower
    allExact &&= l.exact
    i += l.length
    if (q === "+") break
  }
  return { lower, exact: allExact ? exact : undefined, end: i }
}

/** The top-level branches of the group opening at `i` (`(?:a|b)`): their start indexes, and where the group closes. */
const branches = (src: string, i: number): { readonly starts: ReadonlyArray<number>; readonly close: number } | undefined => {
  let depth = 0
  const starts = [i + (src.startsWith("(?:", i) ? 3 : 1)]
  for (let j = i; j < src.length; j++) {
    const c = src[j]
    if (c === "\\") { j++; continue }
    if (c === "[") { while (j < src.length && src[j] !== "]") j += src[j] === "\\" ? 2 : 1; continue }
    if (c === "(") depth++
    else if (c === ")") { depth--; if (depth === 0) return { starts, close: j } }
    else if (c === "|" && depth === 1) starts.push(j + 1)
  }
  return undefined
}

const MIN_TRIGGER = 2

const WORD_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
const DIGIT_CHARS = "0123456789"

/**
 * The characters of the class `[…]` at `i` of a regex source when at least one of them must stand
 * there (the class is not optional: no `?`, `*`, `{0…}` after it), as a string, and how many times
 * at least (its quantifier's least: `{13}`, `{20,}`, `+`); undefined for anything else, or a class
 * this does not read (a negation, `\s`, an escaped code).
 */
export const classAt = (src: string, i: number): { readonly chars: string; readonly count: number } | undefined => {
  if (src[i] !== "[" || src[i + 1] === "^") return undefined
  let chars = ""
  let j = i + 1
  while (j < src.length && src[j] !== "]") {
    const c = src[j]!
    if (c === "\\") {
      const n = src[j + 1] ?? ""
      if (n === "w") chars += WORD_CHARS
      else if (n === "d") chars += DIGIT_CHARS
      else if (/^[.\-_/:~+=*\\[\]]$/.test(n)) chars += n
      else return undefined
      j += 2
      continue
    }
    const to = src[j + 2]
    if (src[j + 1] === "-" && to !== undefined && to !== "]" && to !== "\\") {
      if (to.charCodeAt(0) < c.charCodeAt(0)) return undefined
      for (let k = c.charCodeAt(0); k <= to.charCodeAt(0); k++) chars += String.fromCharCode(k)
      j += 3
      continue
    }
    chars += c
    j++
  }
  if (src[j] !== "]" || chars.length === 0 || /[^\x01-\x7f]/.test(chars)) return undefined
  const q = src.slice(j + 1, j + 12)
  if (q.startsWith("?") || q.startsWith("*")) return undefined
  const least = /^\{(\d+)(?:,\d*)?\}/.exec(q)
  const count = least === null ? 1 : Number(least[1])
  return count >= 1 ? { chars, count } : undefined
}

/**
 * How gitleaks' generated rules go on after their keyword: a name's rest, quotes, an operator.
 * The operator's first character stands at most 23 characters after the keyword, with nothing but
 * name characters, white space and quotes before it (`assignmentAhead`).
 */
const ASSIGNMENT = "(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)"
const ASSIGNMENT_REACH = 20 + 3

const isNameOrQuoteCode = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 45 || c === 32 || (c >= 9 && c <= 13) || c === 34 || c === 39
const isOperatorCode = (c: number): boolean => c === 61 || c === 62 || c === 58 || c === 124 || c === 63 || c === 44

/**
 * Whether `ASSIGNMENT` can match at `from`: its operator is found first after name characters, white
 * space and quotes, within reach. A character above ASCII (some are `\s`) leaves it to the regex.
 */
export const assignmentAhead = (text: string, from: number): boolean => {
  for (let k = from; k <= from + ASSIGNMENT_REACH && k < text.length; k++) {
    const c = text.charCodeAt(k)
    if (c >= 128) return true
    if (!isNameOrQuoteCode(c)) return isOperatorCode(c)
  }
  return false
}

/** The triggers of rule `r` (see `Trigger`). */
export const triggersOf = (r: GitleaksRule, rule: number): ReadonlyArray<Trigger> => {
  const src = r.regex
  let i = src.startsWith("\\b") ? 2 : 0
  // The innermost capturing group the regex opens with, if any (`\\b(bkaa_…|bkpat_…)`).
  let open = -1
  while (src.startsWith("(", i) && !src.startsWith("(?", i)) open = i++
  const groupAt = src.startsWith("(?:", i) ? i : open >= 0 && (branches(src, open)?.starts.length ?? 0) > 1 ? open : -1
  // Each literal, and where it stops in the regex (what the regex wants after it starts there).
  let lits: ReadonlyArray<{ readonly lower: string; readonly exact: string | undefined; readonly end: number }> = []
  if (groupAt >= 0) {
    // A group of alternatives, not optional: each branch's literal, and the literal after the
    // group when the branch is all literal (`(?:sk|rk)_` gives `sk_`, `rk_`).
    const group = branches(src, groupAt)
    if (group !== undefined && !/[?*{]/.test(src[group.close + 1] ?? "")) {
      const after = leadingLiteral(src, group.close + 1)
      lits = group.starts.map((b) => {
        const l = leadingLiteral(src, b)
        const whole = src[l.end] === "|" || l.end === group.close
        if (!whole) return l
        return { lower: l.lower + after.lower, exact: l.exact !== undefined && after.exact !== undefined ? l.exact + after.exact : undefined, end: after.end }
      })
    }
  } else {
    lits = [leadingLiteral(src, i)]
  }
  const wordStart = src.startsWith("\\b")
  if (lits.length > 0 && lits.every((l) => l.lower.length >= MIN_TRIGGER)) {
    // What the regex wants right after the literal: a class (`00[A-Za-z0-9]{13}`), or gitleaks'
    // assignment after a group of keywords (`(?:alibaba|…|key)(?:[ \t\w.-]{0,20})…`).
    return lits.map((l) => {
      const follow = classAt(src, l.end)
      return { rule, literal: l.lower, exact: l.exact, atStart: true, wordStart, scanned: true, lead: AT_START, assignment: src.startsWith(ASSIGNMENT, l.end), ...(follow === undefined ? {} : { follow }) }
    })
  }
  // An optional group first (`(?:https?://)?hooks.slack.com`): the literal after it, which the
  // match starts at most `LEAD` characters before.
  const group = src.startsWith("(?:", i) ? branches(src, i) : undefined
  if (group !== undefined && src[group.close + 1] === "?") {
    const after = leadingLiteral(src, group.close + 2)
    if (after.lower.length >= 4) return [{ rule, literal: after.lower, exact: after.exact, atStart: false, wordStart: false, scanned: true, lead: LEAD_WIDTH, assignment: false }]
  }
  // Else the keywords. A "name = value" rule's (`adafruit`) are not looked for: the assignment rule
  // masks such values by their name. Any other rule's keyword is, with the reach before it read
  // from the regex when the keyword stands in it, else `LEAD`; a keyword that is a plain word and
  // not in the regex tells nothing about where a match is, and is not looked for.
  const named = src.startsWith(NAME_PREFIX)
  const byKeyword = r.keywords.flatMap((k) => {
    const leads = named ? undefined : keywordLeads(src, k)
    const scanned = !named && (leads !== undefined || /[^a-z0-9]/.test(k))
    return (leads ?? [LEAD_WIDTH]).map((lead) => ({ rule, literal: k, exact: undefined, atStart: false, wordStart: false, scanned, lead, assignment: false }))
  })
  if (named || byKeyword.some((t) => t.scanned)) return byKeyword
  // No keyword tells where a match is (`[A-Za-z0-9+/]{22}==:[A-Za-z0-9]{32}` under `tableau`): a
  // literal of the regex itself, when the regex before it has a bounded width.
  const middle = middleLiteral(src)
  if (middle !== undefined) return [...byKeyword, { rule, literal: middle.lower, exact: middle.exact, atStart: false, wordStart: false, scanned: true, lead: middle.lead, assignment: false }]
  // Nor a literal of 3: a one-character separator between two runs (`\d{15,16}(\||%)[…]{27,40}`,
  // an app id, `|`, its secret), looked for as each last character of the first run and each
  // separator (`7|`, `7%`), with the second run after it.
  const separated = separatorLiterals(src)
  return separated === undefined
    ? byKeyword
    : [...byKeyword, ...separated.literals.map((literal) => ({ rule, literal, exact: literal, atStart: false, wordStart: false, scanned: true, lead: separated.lead, assignment: false, follow: separated.follow }))]
}

/** Most literals a separator may stand for (characters the run before it ends with, times separators). */
const MAX_SEPARATOR_LITERALS = 24

/**
 * The two-character literals of a regex that has a run of a small class (`\d{15,16}`), then a
 * group of one-character branches (`(\||%)`), then a run of a class (`[A-Za-z0-9_-]{27,40}`): each
 * character of the first class followed by each separator, where the match starts as far before
 * as the regex before the first run reaches plus the run's length less one; and the second run as
 * what must follow. Undefined for any other shape, or when that makes too many literals.
 */
const separatorLiterals = (src: string): { readonly literals: ReadonlyArray<string>; readonly lead: Width; readonly follow: { readonly chars: string; readonly count: number } } | undefined => {
  const m = /(\\d|\[[^\]\\]*\])\{(\d+)(?:,(\d+))?\}\((?:\?:)?((?:\\.|[^\\()|[\]{}?*+.^$])(?:\|(?:\\.|[^\\()|[\]{}?*+.^$]))*)\)/.exec(src)
  if (m === null || src.slice(0, m.index).includes("|")) return undefined
  const first = m[1] === "\\d" ? { chars: DIGIT_CHARS, count: 1 } : classAt(`${m[1]}`, 0)
  const follow = classAt(src, m.index + m[0].length)
  if (first === undefined || follow === undefined) return undefined
  const separators = [...m[4]!.matchAll(/\\.|[^|]/g)].map((b) => b[0].at(-1)!)
  if (first.chars.length * separators.length > MAX_SEPARATOR_LITERALS) return undefined
  const before = widthOf(src.slice(0, m.index))
  const least = Number(m[2])
  const most = m[3] === undefined ? least : Number(m[3])
  if (before.max + most > MAX_KEYWORD_LEAD) return undefined
  const literals = [...first.chars].flatMap((c) => separators.map((sep) => c + sep))
  return { literals, lead: { min: before.min + least - 1, max: before.max + most - 1 }, follow }
}

/**
 * The first literal of at least 3 characters after a quantified atom in `src`, when `src` has no
 * alternation (so every match holds it) and the width before it is bounded.
 */
const middleLiteral = (src: string): { readonly lower: string; readonly exact: string | undefined; readonly lead: Width } | undefined => {
  const atoms: Array<number> = [] // where a literal may start: after `}`, `]`, `)`, `+`, `*` outside classes
  for (let i = 0; i < src.length; i++) {
    const c = src[i]
    if (c === "\\") { i++; continue }
    if (c === "[") { while (i < src.length && src[i] !== "]") i += src[i] === "\\" ? 2 : 1; atoms.push(i + 1); continue }
    if (c === "|") return undefined
    if (c === "}" || c === ")" || c === "+" || c === "*") atoms.push(i + 1)
  }
  for (const i of atoms) {
    if (/[?*+{]/.test(src[i] ?? "")) continue
    const l = leadingLiteral(src, i)
    if (l.lower.length < 3) continue
    const lead = widthOf(src.slice(0, i))
    if (lead.max <= MAX_KEYWORD_LEAD) return { lower: l.lower, exact: l.exact, lead }
  }
  return undefined
}
