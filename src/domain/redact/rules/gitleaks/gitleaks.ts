/**
 * The gitleaks rule set (`data.ts`) applied the redactor's way: the scan's one pass over the text
 * finds every trigger literal (`GITLEAKS_LITERALS`), and only the rules of that literal are tried, anchored (sticky) just before it,
 * so text without keywords costs one pass and a keyword costs a few anchored attempts, never a
 * search through the rest of the text.
 *
 * Where a match may start: a rule of the "name = value" kind (`[\w.-]{0,50}?(?:keyword)…`) starts
 * at the first of up to 50 name characters before its keyword, and is tried there once; any other
 * rule starts at most `LEAD` characters before its keyword (`\b`, a scheme, a separator), or,
 * when the keyword stands in the middle of its regex, as far before it as the regex before the
 * keyword can reach (`width.ts`), and is tried at each of those positions. The span masked is the rule's secret group (or the first group
 * that matched, or the whole match), unless its entropy is below the rule's least, or an
 * allow-list or stop-word says it is an example.
 */
import type { ScanContext } from "../../findings.ts"
import type { LiteralSpec } from "../../literals.ts"
import { AI_FORMATS } from "../aiFormats.ts"
import { MORE_FORMATS } from "../moreFormats.ts"
import { GITLEAKS_RULES, GLOBAL_ALLOW, GLOBAL_STOPWORDS, type GitleaksRule } from "./data.ts"
import { type Width, widthOf } from "./width.ts"

/** The rules applied here: Betterleaks' and gitleaks' (`data.ts`), and the bridge's own of the same shape. */
export const FORMAT_RULES: ReadonlyArray<GitleaksRule> = [...GITLEAKS_RULES, ...MORE_FORMATS, ...AI_FORMATS]

/** How far before its keyword a match may start, for rules not of the "name = value" kind. */
const LEAD = 12
/** How far before its keyword a "name = value" match may start (the rules' own `{0,50}`). */
const NAME_REACH = 50
const NAME_PREFIX = "[\\w.-]{0,50}?"
const NAME_CHAR = /[\w.-]/

interface Compiled {
  readonly id: string
  readonly regex: RegExp
  readonly named: boolean
  readonly group: number
  readonly entropy: number
  readonly allowSecret: ReadonlyArray<RegExp>
  readonly allowMatch: ReadonlyArray<RegExp>
  readonly allowLine: ReadonlyArray<RegExp>
  readonly stopwords: ReadonlyArray<string>
  readonly require: ReadonlyArray<RegExp>
}

const compile = (r: GitleaksRule): Compiled => {
  const allow = r.allow ?? []
  const regexes = (target: string) =>
    allow.flatMap((a) => (a.target === target && "regex" in a ? [new RegExp(a.regex)] : []))
  return {
    id: r.id,
    regex: new RegExp(r.regex, "yd"),
    named: r.regex.startsWith(NAME_PREFIX),
    group: r.group ?? 0,
    entropy: r.entropy ?? 0,
    allowSecret: regexes("secret"),
    allowMatch: regexes("match"),
    allowLine: regexes("line"),
    stopwords: allow.flatMap((a) => (a.target === "stopwords" && "words" in a ? a.words : [])),
    require: (r.require ?? []).map((s) => new RegExp(s))
  }
}

const RULES: ReadonlyArray<Compiled> = FORMAT_RULES.map(compile)
const GLOBAL_ALLOW_REGEXES = GLOBAL_ALLOW.map((s) => new RegExp(s))

/**
 * A trigger: a literal that every match of a rule holds at a known place. From the rule's own
 * regex where it starts with literal text (`\\b(ghp_…`, `(?:hvs\\.…|s\\.…)`): the match starts at
 * the trigger, and the case written there must match (`SK…`, `ey…`). Else the rule's keyword, with
 * the "name = value" or `LEAD` reach before it.
 */
interface Trigger {
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

/**
 * Where `keyword` is spelled in a regex source, in either case or as classes of both cases
 * (`[tT][wW]…`, the way a case-insensitive rule is written here), a sign escaped or not, or -1.
 */
const keywordIn = (src: string, keyword: string): number => {
  const letter = (c: string) => `(?:${c}|\\[${c}${c.toUpperCase()}\\]|\\[${c.toUpperCase()}${c}\\])`
  const pattern = [...keyword].map((c) => (/[a-z]/.test(c) ? letter(c) : `\\\\?${c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`)).join("")
  return src.search(new RegExp(pattern, "i"))
}

/**
 * Where a keyword that stands in the middle of a rule's regex (`…{29}_mmk`, `\.(?:atlasv1)\.`)
 * lies from the start of the match, when the regex before it has a bounded width.
 */
const keywordLead = (src: string, keyword: string): Width | undefined => {
  const at = keywordIn(src, keyword)
  if (at <= 0 || src[at - 1] === "\\") return undefined
  const w = widthOf(src.slice(0, at))
  return w.max <= MAX_KEYWORD_LEAD ? w : undefined
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
  const byKeyword = r.keywords.map((k) => {
    const lead = named ? undefined : keywordLead(src, k)
    const scanned = !named && (lead !== undefined || /[^a-z0-9]/.test(k))
    return { rule, literal: k, exact: undefined, atStart: false, wordStart: false, scanned, lead: lead ?? LEAD_WIDTH, assignment: false }
  })
  if (named || byKeyword.some((t) => t.scanned)) return byKeyword
  // No keyword tells where a match is (`[A-Za-z0-9+/]{22}==:[A-Za-z0-9]{32}` under `tableau`): a
  // literal of the regex itself, when the regex before it has a bounded width.
  const middle = middleLiteral(src)
  return middle === undefined ? byKeyword : [...byKeyword, { rule, literal: middle.lower, exact: middle.exact, atStart: false, wordStart: false, scanned: true, lead: middle.lead, assignment: false }]
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

const TRIGGERS: ReadonlyArray<Trigger> = FORMAT_RULES.flatMap(triggersOf)


/** Every trigger, for the test that every rule has one. */
export const TRIGGER_LITERALS: ReadonlyArray<{ readonly rule: string; readonly literal: string; readonly atStart: boolean; readonly scanned: boolean }> =
  TRIGGERS.map((t) => ({ rule: FORMAT_RULES[t.rule]!.id, literal: t.literal, atStart: t.atStart, scanned: t.scanned }))


/** Shannon entropy of `s`, in bits per character. */
export const shannon = (s: string): number => {
  const counts = new Map<string, number>()
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1)
  let h = 0
  for (const n of counts.values()) {
    const p = n / s.length
    h -= p * Math.log2(p)
  }
  return h
}

const lineAround = (text: string, start: number, end: number): string => {
  const from = text.lastIndexOf("\n", start - 1) + 1
  const nl = text.indexOf("\n", end)
  return text.slice(from, nl < 0 ? text.length : nl)
}

const isAllowed = (rule: Compiled, text: string, match: RegExpExecArray, secret: string, at: number): boolean => {
  const lower = secret.toLowerCase()
  if (GLOBAL_ALLOW_REGEXES.some((r) => r.test(secret))) return true
  if (GLOBAL_STOPWORDS.some((w) => lower.includes(w)) || rule.stopwords.some((w) => lower.includes(w))) return true
  if (rule.allowSecret.some((r) => r.test(secret)) || rule.allowMatch.some((r) => r.test(match[0]))) return true
  return rule.allowLine.length > 0 && rule.allowLine.some((r) => r.test(lineAround(text, at, at + match[0].length)))
}

/** The secret of a match: its secret group, or the first group that matched, or all of it. */
const secretSpan = (rule: Compiled, m: RegExpExecArray): readonly [number, number] | undefined => {
  const indices = m.indices!
  if (rule.group > 0) return indices[rule.group]
  for (let g = 1; g < indices.length; g++) {
    const span = indices[g]
    if (span !== undefined && span[1] > span[0]) return span
  }
  return indices[0]
}

/** Tries `rule` anchored at `from`; reports what it finds. Returns where the match ended, or -1. */
const tryAt = (ctx: ScanContext, rule: Compiled, from: number): number => {
  rule.regex.lastIndex = from
  const m = rule.regex.exec(ctx.text)
  if (m === null) return -1
  const span = secretSpan(rule, m)
  if (span === undefined || span[1] <= span[0]) return -1
  const secret = ctx.text.slice(span[0], span[1])
  if (rule.entropy > 0 && shannon(secret) < rule.entropy) return -1
  if (isAllowed(rule, ctx.text, m, secret, m.index) || !rule.require.every((r) => r.test(secret))) return -1
  ctx.findings.push({ start: span[0], end: span[1], kind: "token", quoted: false, detail: `a secret (${rule.id})` })
  return m.index + m[0].length
}

/** Tries the rule of trigger `t` found at `at`, unless it was tried there already. */
const tryTrigger = (ctx: ScanContext, t: Trigger, at: number, triedTo: Int32Array): void => {
  const { text } = ctx
  const i = t.rule
  const rule = RULES[i]!
  if (t.atStart || rule.named) {
    let from = at
    if (rule.named) while (from > 0 && at - from < NAME_REACH && NAME_CHAR.test(text[from - 1]!)) from--
    if (from <= triedTo[i]!) return
    triedTo[i] = Math.max(at, tryAt(ctx, rule, from))
    return
  }
  for (let from = Math.max(0, at - t.lead.max, triedTo[i]! + 1); from <= at - t.lead.min; from++) {
    triedTo[i] = from
    const end = tryAt(ctx, rule, from)
    if (end >= 0) {
      triedTo[i] = end
      return
    }
  }
}

/** What one place found by the scan's search stands for: the triggers of one literal with the same conditions. */
export interface GitleaksLiteral {
  /** The literal, with the conditions every trigger here puts on a place (its case, `\b`, the next character). */
  readonly spec: LiteralSpec
  readonly triggers: ReadonlyArray<Trigger>
}

/**
 * The literals the scan looks for: those read from the rules' regexes, and the keywords that hold
 * a character other than letters and digits, each with the conditions its rules put on the place
 * (checked by the search itself, `literals.ts`, before any rule is tried). The keywords of the
 * "name = value" rules (a company name near an `=`) are not looked for: the assignment rule masks
 * such values by their name, and looking for 135 words costs more than the rest of the scan.
 * `scan.ts` finds them with the redactor's other triggers, in one pass, and calls `gitleaksHit`.
 */
export const GITLEAKS_SEARCH: ReadonlyArray<GitleaksLiteral> = (() => {
  const groups = new Map<string, { spec: LiteralSpec; triggers: Array<Trigger> }>()
  for (const t of TRIGGERS) {
    if (!t.scanned) continue
    const key = JSON.stringify([t.literal, t.exact ?? null, t.wordStart, t.follow ?? null])
    const group = groups.get(key)
    if (group !== undefined) group.triggers.push(t)
    else {
      const spec: LiteralSpec = {
        literal: t.exact ?? t.literal,
        ...(t.exact !== undefined ? { cased: true } : {}),
        ...(t.wordStart ? { wordStart: true } : {}),
        ...(t.follow !== undefined ? { follow: t.follow.chars, followCount: t.follow.count } : {})
      }
      groups.set(key, { spec, triggers: [t] })
    }
  }
  return [...groups.values()]
})()

/** The literals the scan looks for (lower case), without their conditions. */
export const GITLEAKS_LITERALS: ReadonlyArray<string> = [...new Set(GITLEAKS_SEARCH.map((g) => g.spec.literal.toLowerCase()))]

/** The literals a rule's match starts with, in the case the rule wants (`ghp_`, `AKIA`, `SG.`). */
export const GITLEAKS_EXACT_STARTS: ReadonlyArray<string> = [...new Set(TRIGGERS.filter((t) => t.scanned && t.atStart && t.exact !== undefined).map((t) => t.exact!))]

/** Per rule, the position up to which it was already tried in one text (a second trigger nearby adds nothing). */
export type GitleaksState = { triedTo: Int32Array | undefined }

export const newGitleaksState = (): GitleaksState => ({ triedTo: undefined })

/** Tries the rules of `found` (one of `GITLEAKS_SEARCH`), whose literal and conditions hold at `at`; adds what they find. */
export const gitleaksHit = (ctx: ScanContext, found: GitleaksLiteral, at: number, state: GitleaksState): void => {
  state.triedTo ??= new Int32Array(RULES.length).fill(-1)
  // Whether an assignment follows the literal here, asked once for all its rules that want one.
  let assigned: boolean | undefined
  for (const t of found.triggers) {
    if (t.assignment && !(assigned ??= assignmentAhead(ctx.text, at + t.literal.length))) continue
    tryTrigger(ctx, t, at, state.triedTo)
  }
}
