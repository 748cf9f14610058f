/**
 * One pass over a text that finds every span to mask. A single case-insensitive trigger regex finds
 * the few places a secret can start (a known prefix, `eyJ`, `-----BEGIN`, `://`, the words `token`,
 * `secret`, `pass`, `key`, `bearer`, `basic`, `authorization`, curl's `-u`); the precise rule for
 * that trigger then looks at the text around it. Registered secrets are matched by their own
 * alternation, and the formats of the gitleaks rule set by their keywords (`rules/gitleaks/`).
 * Text with no trigger is never touched, which keeps ordinary text fast and unchanged.
 *
 * Idempotence: a token glued to the end of another secret (`ASIA…` then `hal0bk_…`) does not start
 * a word, so it is not a token; but once the first is masked it follows a `*` and would be one. So
 * a trigger refused only because of the character before it is tried again, as if that character
 * were masked, when a span found holds that character.
 */
import { RunCache } from "./bounded.ts"
import { escapeBefore } from "./escapes.ts"
import type { ExactSecrets } from "./exact.ts"
import { exactRule } from "./exact.ts"
import type { Finding, ScanContext } from "./findings.ts"
import { isAlnum, tokenAt } from "./prefixes.ts"
import { assignmentRule, userFlagRule } from "./rules/assignments.ts"
import { gitleaksRule } from "./rules/gitleaks/gitleaks.ts"
import { authorizationHeaderRule, schemeCredentialRule } from "./rules/authorization.ts"
import { jwtRule, privateKeyRule, urlPasswordRule } from "./rules/shapes.ts"

/**
 * Every place a secret can start, written as a trie on the first character (V8 runs that far faster
 * than a flat alternation). Case-insensitive; the rules check case where it matters. The known
 * prefixes here must cover `KNOWN_PREFIXES` (a test checks it).
 */
export const TRIGGER_SOURCE = [
  "a(?:pi_org_|kia|sia|iza|uthorization)", "b(?:earer|asic)", "eyj", "g(?:ithub_pat_|h[pousr]_|lpat-)",
  "h(?:al0bk_|f_)", "key", "pass", "rk_live_", "s(?:k[-_]|ecret)", "token", "whsec_", "x(?:ox[abprs]-|app-)", "://",
  "-(?:----begin |-user(?=[ \\t=])|u(?=[ \\t=]))"
].join("|")
const TRIGGER = new RegExp(TRIGGER_SOURCE, "gi")

const enum Group { Prefix, Jwt, Pem, Url, Name, Scheme, Authorization, UserFlag }

interface Trigger {
  readonly at: number
  readonly end: number
  readonly group: Group
}

/** Which rule a trigger match is for, from its first character (and length where two share one). */
const groupOf = (m: string): Group => {
  switch (m.charCodeAt(0) | 0x20) {
    case 0x61: return m.length === 13 ? Group.Authorization : Group.Prefix // a
    case 0x62: return Group.Scheme // b
    case 0x65: return Group.Jwt // e
    case 0x6b: case 0x70: case 0x74: return Group.Name // k, p, t
    case 0x73: return m.length === 6 ? Group.Name : Group.Prefix // s: secret, sk-
    case 0x3a: return Group.Url // :
    case 0x2d: return m.length === 11 ? Group.Pem : Group.UserFlag // -
    default: return Group.Prefix // g, h, r, w, x
  }
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

/** Every span of `text` a rule would mask (unsorted, possibly overlapping). */
export const scan = (text: string, liveEdge: boolean, secrets: ExactSecrets): ReadonlyArray<Finding> => {
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
  const trigger = new RegExp(TRIGGER)
  for (let m = trigger.exec(text); m !== null; m = trigger.exec(text)) {
    current = { at: m.index, end: m.index + m[0].length, group: groupOf(m[0]) }
    dispatch(ctx, current)
  }
  exactRule(ctx, secrets)
  gitleaksRule(ctx)
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
