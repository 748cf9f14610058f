/**
 * One pass over a text that finds every span to mask. A single case-insensitive trigger regex finds
 * the few places a secret can start (a known prefix, `eyJ`, `-----BEGIN`, `://`, the words `token`,
 * `secret`, `pass`, `key`, `bearer`, `basic`, `authorization`, curl's `-u`); the precise rule for
 * that trigger then looks at the text around it. Registered secrets are matched by their own
 * alternation. Text with no trigger is never touched, which keeps ordinary text fast and unchanged.
 */
import type { ExactSecrets } from "./exact.ts"
import { exactRule } from "./exact.ts"
import type { Finding, ScanContext } from "./findings.ts"
import { PREFIX_TRIGGER_SOURCE, tokenAt } from "./prefixes.ts"
import { assignmentRule, userFlagRule } from "./rules/assignments.ts"
import { authorizationHeaderRule, schemeCredentialRule } from "./rules/authorization.ts"
import { jwtRule, privateKeyRule, urlPasswordRule } from "./rules/shapes.ts"

/** Capture groups of the trigger regex, in order. */
const TRIGGER = new RegExp(
  [
    `(${PREFIX_TRIGGER_SOURCE})`,
    "(eyj)",
    "(-----begin )",
    "(://)",
    "(token|secret|pass|key)",
    "(bearer|basic)",
    "(authorization)",
    "(--user|-u)(?=[ \\t=])"
  ].join("|"),
  "gi"
)

const enum Group { Prefix = 1, Jwt, Pem, Url, Name, Scheme, Authorization, UserFlag }

const knownToken = (ctx: ScanContext, at: number): void => {
  const hit = tokenAt(ctx.text, at, ctx.liveEdge)
  if (hit !== undefined) ctx.findings.push({ start: hit.start, end: hit.end, kind: "token", quoted: false, detail: hit.known.label })
}

/** Every span of `text` a rule would mask (unsorted, possibly overlapping). */
export const scan = (text: string, liveEdge: boolean, secrets: ExactSecrets): ReadonlyArray<Finding> => {
  const ctx: ScanContext = { text, liveEdge, findings: [] }
  const trigger = new RegExp(TRIGGER)
  for (let m = trigger.exec(text); m !== null; m = trigger.exec(text)) {
    const at = m.index
    const end = at + m[0].length
    if (m[Group.Prefix] !== undefined) knownToken(ctx, at)
    else if (m[Group.Name] !== undefined) assignmentRule(ctx, at, end)
    else if (m[Group.Url] !== undefined) urlPasswordRule(ctx, at)
    else if (m[Group.Jwt] !== undefined) jwtRule(ctx, at)
    else if (m[Group.Scheme] !== undefined) schemeCredentialRule(ctx, at, end)
    else if (m[Group.Authorization] !== undefined) authorizationHeaderRule(ctx, at, end)
    else if (m[Group.Pem] !== undefined) privateKeyRule(ctx, at)
    else if (m[Group.UserFlag] !== undefined) userFlagRule(ctx, at, end)
  }
  exactRule(ctx, secrets)
  return ctx.findings
}
