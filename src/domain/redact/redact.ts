/**
 * The redaction rules as pure functions (BRIDGE.md "Redactor"; seed "Run tools" and "Skills").
 * A `Redaction` is the rule set plus the exact secrets registered so far; the `Redactor` service
 * holds one. The rules live in their own modules:
 *
 * - `names.ts`      which names hold secrets (`NAME=value`, `NAME: value`, `--name value`, JSON keys)
 * - `values.ts`     where such a value starts and ends, and when it is code or a reference, not a value
 * - `prefixes.ts`   known token prefixes (`hf_`, `ghp_`, `sk-`, `AKIA`, ...) and the live edge
 * - `rules/*`       assignments and flags, authorization credentials, URL passwords, JWTs, PEM keys
 * - `exact.ts`      registered secrets and their base64 / URL-encoded / JSON-escaped forms
 * - `scan.ts`       one pass that finds every span to mask
 * - `segments.ts`   consecutive events as one text, mapped back to the parts
 * - `json.ts`       every string of a JSON tree
 * - `skillCheck.ts` the skill-push check (`skillSecretProblem`) built on the same scan
 */
import type { ExactSecrets } from "./exact.ts"
import { makeExactSecrets } from "./exact.ts"
import type { Finding } from "./findings.ts"
import { redactJson } from "./json.ts"
import { applySpans, mergeSpans } from "./ranges.ts"
import { scan } from "./scan.ts"
import type { SegmentOptions } from "./segments.ts"
import { redactSegments } from "./segments.ts"
import { skillSecretProblem } from "./skillCheck.ts"

export { MASK } from "./mask.ts"
export { CONTEXT_CHARS, type SegmentOptions } from "./segments.ts"
export type { Finding, FindingKind } from "./findings.ts"

export interface Redaction {
  /** `s` with every secret masked. `liveEdge`: `s` ends at the newest stored text of an unfinished run. */
  readonly text: (s: string, liveEdge: boolean) => string
  /** Every string of a JSON tree masked; keys and shape untouched. */
  readonly json: <A>(value: A) => A
  /** Consecutive `message.text` parts masked as one text (see `segments.ts` for the mapping). */
  readonly segments: (parts: ReadonlyArray<string>, options: SegmentOptions) => ReadonlyArray<string>
  /** A Redaction that also masks `value` (and its encodings). Values under 6 characters are ignored. */
  readonly withSecret: (value: string) => Redaction
  /** True when `text(s, false)` would change `s`. */
  readonly wouldChange: (s: string) => boolean
  /** The spans `text` masks, with what each is. */
  readonly findings: (s: string, liveEdge: boolean) => ReadonlyArray<Finding>
  /** The skill-push check with these rules and secrets: null when fine, else the message. */
  readonly skillProblem: (fileName: string, text: string) => string | null
}

/** Characters that continue a name: a mask followed by one may change how that name reads. */
const NAME_CHAR = /[A-Za-z0-9_.-]/
/** Rounds of masking the masked text again; one is enough for all but glued secrets. */
const MAX_ROUNDS = 4

const fromSecrets = (secrets: ExactSecrets): Redaction => {
  const once = (s: string, liveEdge: boolean): { readonly out: string; readonly glued: boolean } => {
    const found = scan(s, liveEdge, secrets)
    if (found.length === 0) return { out: s, glued: false }
    const spans = mergeSpans(found)
    return { out: applySpans(s, spans), glued: spans.some((sp) => NAME_CHAR.test(s[sp.end] ?? "")) }
  }
  // A mask glued to the name after it cuts that name short (`<token>--token x` reads `--token x`
  // once the token is masked), so such text is masked again until nothing changes: idempotence.
  const text = (s: string, liveEdge: boolean): string => {
    let { out, glued } = once(s, liveEdge)
    for (let round = 1; glued && round < MAX_ROUNDS; round++) {
      const next = once(out, liveEdge)
      if (next.out === out) break
      ;({ out, glued } = next)
    }
    return out
  }
  return {
    text,
    json: (value) => redactJson(value, (s) => text(s, false)),
    segments: (parts, options) => redactSegments(parts, options, secrets),
    withSecret: (value) => fromSecrets(makeExactSecrets([...secrets.values, value])),
    wouldChange: (s) => scan(s, false, secrets).length > 0,
    findings: (s, liveEdge) => scan(s, liveEdge, secrets),
    skillProblem: (fileName, s) => skillSecretProblem(fileName, s, secrets)
  }
}

export const makeRedaction = (secrets: ReadonlyArray<string>): Redaction => fromSecrets(makeExactSecrets(secrets))

export { skillSecretProblem } from "./skillCheck.ts"
export { isSecretName } from "./names.ts"
