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
import { TRUFFLE_FORMATS } from "../truffleFormats.ts"
import { GITLEAKS_RULES, GLOBAL_ALLOW, GLOBAL_STOPWORDS, type GitleaksRule } from "./data.ts"
import { assignmentAhead, NAME_PREFIX, type Trigger, triggersOf } from "./triggers.ts"

/** The rules applied here: Betterleaks' and gitleaks' (`data.ts`), and the bridge's own of the same shape (TruffleHog's formats among them). */
export const FORMAT_RULES: ReadonlyArray<GitleaksRule> = [...GITLEAKS_RULES, ...MORE_FORMATS, ...AI_FORMATS, ...TRUFFLE_FORMATS]

/** How far before its keyword a "name = value" match may start (the rules' own `{0,50}`). */
const NAME_REACH = 50
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
