/**
 * One pass over a text that finds every span to mask. One case-insensitive search for many literals
 * (`literals.ts`) finds the few places a secret can start (a known prefix, `eyJ`, `-----BEGIN`, `://`, the words `token`,
 * `secret`, `pass`, `key`, `bearer`, `basic`, `authorization`, curl's `-u`); the precise rule for
 * that trigger then looks at the text around it. Registered secrets are matched by their own
 * alternation; the same pass finds the triggers of the gitleaks rule set (`rules/gitleaks/`).
 * Text with no trigger is never touched, which keeps ordinary text fast and unchanged.
 *
 * Idempotence: a token glued to the end of another secret (`ASIA…` then `hal0bk_…`) does not start
 * a word, so it is not a token; but once the first is masked it follows a `*` and would be one. So
 * a trigger refused only because of the character before it is tried again, as if that character
 * were masked, when a span found holds that character.
 */
import { BRIDGE_KEY_PREFIX } from "../bridgeKeys.ts"
import { RunCache } from "./bounded.ts"
import { escapeBefore } from "./escapes.ts"
import type { ExactSecrets } from "./exact.ts"
import { exactRule } from "./exact.ts"
import type { Finding, ScanContext } from "./findings.ts"
import { isAlnum, KNOWN_PREFIXES, tokenAt } from "./prefixes.ts"
import { assignmentRule, userFlagRule } from "./rules/assignments.ts"
import { GITLEAKS_EXACT_STARTS, GITLEAKS_SEARCH, type GitleaksLiteral, gitleaksHit, newGitleaksState } from "./rules/gitleaks/gitleaks.ts"
import { type LiteralSpec, makeLiteralSearch } from "./literals.ts"
import { backslashRule, base64Rule, base64Triggers, ESCAPE_TRIGGERS, PERCENT_TRIGGERS, percentRule } from "./rules/encoded.ts"
import { authorizationHeaderRule, schemeCredentialRule } from "./rules/authorization.ts"
import { jwtRule, privateKeyRule, urlPasswordRule } from "./rules/shapes.ts"

const enum Group { Prefix, Jwt, Pem, Url, Name, Scheme, Authorization, UserFlag }

/**
 * Every place a secret can start, and the rule each is for. Case-insensitive; the rules check case
 * where it matters. The known prefixes here must cover `KNOWN_PREFIXES` (a test checks it). `follow`:
 * the character after the literal must be one of these (curl's `-u` and `--user` flags).
 */
const MAIN_TRIGGERS: ReadonlyArray<{ readonly literal: string; readonly group: Group; readonly follow?: string }> = [
  ...["api_org_", "akia", "asia", "aiza", "github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "glpat-", BRIDGE_KEY_PREFIX, "hf_",
    "rk_live_", "sk-", "sk_", "whsec_", "xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-", "xapp-"].map((literal) => ({ literal, group: Group.Prefix })),
  { literal: "authorization", group: Group.Authorization },
  { literal: "bearer", group: Group.Scheme }, { literal: "basic", group: Group.Scheme },
  { literal: "eyj", group: Group.Jwt },
  ...["key", "pass", "secret", "token", "pwd", "auth", "cred"].map((literal) => ({ literal, group: Group.Name })),
  // `pat` ends a name (`GITHUB_PAT=`, `"adoPat":`), so a separator or quote follows it (not `path`, `pattern`).
  { literal: "pat", group: Group.Name, follow: "=:\"' \t]\\" },
  { literal: "://", group: Group.Url },
  { literal: "-----begin ", group: Group.Pem },
  { literal: "--user", group: Group.UserFlag, follow: " \t=" }, { literal: "-u", group: Group.UserFlag, follow: " \t=" }
]

/**
 * The words whose base64 forms start a base64 run worth decoding (`rules/encoded.ts`): the known
 * token prefixes, the literal starts of gitleaks' rules that fix their case, and secret words.
 */
const BASE64_WORDS: ReadonlyArray<string> = [
  ...KNOWN_PREFIXES.map((k) => k.prefix), ...GITLEAKS_EXACT_STARTS.filter((l) => l.length >= 4),
  "password", "PASSWORD", "Password", "secret", "SECRET", "token", "TOKEN", "api_key", "API_KEY"
]
const BASE64_FORMS = base64Triggers(BASE64_WORDS)

/**
 * What one literal the pass looks for stands for: a trigger of the bridge's rules, the gitleaks
 * rules of that literal and its conditions, a percent or backslash escape, a base64 form (each
 * with the conditions under which it is wanted, checked by the search: `literals.ts`).
 */
interface Wanted {
  readonly literal: string
  main: (typeof MAIN_TRIGGERS)[number] | undefined
  gitleaks: GitleaksLiteral | undefined
  percent: boolean
  /** A backslash escape of a character (`\u0070`) starts here. */
  escape: boolean
  /** The base64 form (case as written) found here. */
  base64: string | undefined
}

/** The literals of the one pass, and what each stands for, by the search's id. */
const { SEARCH, WANTED } = (() => {
  const specs: Array<LiteralSpec> = []
  const meant: Array<(w: Wanted) => void> = []
  const want = (spec: LiteralSpec, mark: (w: Wanted) => void) => {
    specs.push(spec)
    meant.push(mark)
  }
  for (const t of MAIN_TRIGGERS) want({ literal: t.literal, ...(t.follow !== undefined ? { follow: t.follow } : {}) }, (w) => { w.main = t })
  for (const g of GITLEAKS_SEARCH) want(g.spec, (w) => { w.gitleaks = g })
  for (const l of PERCENT_TRIGGERS) want({ literal: l }, (w) => { w.percent = true })
  for (const l of ESCAPE_TRIGGERS) want({ literal: l }, (w) => { w.escape = true })
  for (const f of BASE64_FORMS) want({ literal: f, cased: true }, (w) => { w.base64 = f })
  const search = makeLiteralSearch(specs)
  const wanted: Array<Wanted> = search.literals.map((literal) => ({ literal, main: undefined, gitleaks: undefined, percent: false, escape: false, base64: undefined }))
  // Literals given twice (the same text and conditions) are one: each mark lands on the one it became.
  search.given.forEach((id, i) => meant[i]!(wanted[id]!))
  return { SEARCH: search, WANTED: wanted }
})()

interface Trigger {
  readonly at: number
  readonly end: number
  readonly group: Group
}

const knownToken = (ctx: ScanContext, at: number): void => {
  if (!ctx.startsWord(at, isAlnum)) return
  const hit = tokenAt(ctx.text, at, ctx.liveEdge, ctx.runs)
  if (hit !== undefined) ctx.findings.push({ start: hit.start, end: hit.end, kind: "token", quoted: false, detail: hit.known.label })
}

const dispatch = (ctx: ScanContext, t: Trigger): void => {
  switch (t.group) {
    case Group.Prefix: return knownToken(ctx, t.at)
    case Group.Name: return assignmentRule(ctx, t.at, t.end)
    case Group.Url: return urlPasswordRule(ctx, t.at)
    case Group.Jwt: return jwtRule(ctx, t.at)
    case Group.Scheme: return schemeCredentialRule(ctx, t.at, t.end)
    case Group.Authorization: return authorizationHeaderRule(ctx, t.at, t.end)
    case Group.Pem: return privateKeyRule(ctx, t.at)
    case Group.UserFlag: return userFlagRule(ctx, t.at, t.end)
  }
}

/**
 * Every span of `text` a rule would mask (unsorted, possibly overlapping). `decode`: also decode
 * percent- and base64-encoded runs and scan them (not done again inside a decoded text).
 */
export const scan = (text: string, liveEdge: boolean, secrets: ExactSecrets, decode = true): ReadonlyArray<Finding> => {
  const findings: Array<Finding> = []
  // Triggers refused for the character before them, and the positions now excused.
  const refused: Array<Trigger> = []
  const excused = new Set<number>()
  let current: Trigger = { at: 0, end: 0, group: Group.Prefix }
  const ctx: ScanContext = {
    text, liveEdge, findings, runs: new RunCache(),
    startsWord: (at, wordChar) => {
      if (at === 0 || !wordChar(text[at - 1]!) || escapeBefore(text, at) > 0 || excused.has(at)) return true
      refused.push(current)
      return false
    }
  }
  const gitleaks = newGitleaksState()
  // The bridge's triggers do not overlap (the next is looked for after the end of the last);
  // gitleaks' are tried wherever they are found.
  let mainNext = 0
  // Encoded runs already decoded end here.
  let percentNext = 0
  let escapeNext = 0
  let base64Next = 0
  const rescan = (decoded: string, edge: boolean) => scan(decoded, edge, secrets, false)
  const { count, hits } = SEARCH.find(text)
  for (let k = 0; k < count; k++) {
    const id = hits[2 * k]!
    const at = hits[2 * k + 1]!
    const w = WANTED[id]!
    const main = w.main
    if (main !== undefined && at >= mainNext) {
      const end = at + w.literal.length
      mainNext = end
      current = { at, end, group: main.group }
      dispatch(ctx, current)
    }
    if (w.gitleaks !== undefined) gitleaksHit(ctx, w.gitleaks, at, gitleaks)
    if (!decode) continue
    if (w.percent && at >= percentNext) percentNext = percentRule(text, at, liveEdge, rescan, findings)
    if (w.escape && at >= escapeNext) escapeNext = backslashRule(text, at, liveEdge, rescan, findings)
    if (w.base64 !== undefined && at >= base64Next) base64Next = Math.max(base64Next, base64Rule(text, at, w.base64, rescan, findings))
  }
  exactRule(ctx, secrets)
  if (refused.length === 0 || findings.length === 0) return findings
  // A trigger refused for the character before it is excused when that character lies in a span
  // found (it will be masked). Left to right, so each secret found excuses the next of a chain.
  const spans = [...findings].sort((a, b) => a.start - b.start)
  let next = 0
  let reach = -1 // the furthest end of the spans that start before the trigger
  for (const t of [...refused].sort((a, b) => a.at - b.at)) {
    while (next < spans.length && spans[next]!.start < t.at) reach = Math.max(reach, spans[next++]!.end)
    if (t.at > reach || excused.has(t.at)) continue
    excused.add(t.at)
    const before = findings.length
    current = t
    dispatch(ctx, t)
    for (let i = before; i < findings.length; i++) reach = Math.max(reach, findings[i]!.end)
  }
  return findings
}
