/**
 * The redaction rules as pure functions (docs/REFERENCE.md).
 * A `Redaction` is the rule set plus the exact secrets registered so far; the `Redactor` service
 * holds one. The rules live in their own modules:
 *
 * - `names.ts`      which names hold secrets (`NAME=value`, `NAME: value`, `--name value`, JSON keys)
 * - `values.ts`     where such a value starts and ends, and when it is code or a reference, not a value
 * - `prefixes.ts`   known token prefixes (`hf_`, `ghp_`, `sk-`, `AKIA`, ...) and the live edge
 * - `rules/*`       assignments and flags, authorization credentials, URL passwords, JWTs, PEM keys
 * - `rules/gitleaks/` the formats of Betterleaks' rule set (generated, `upstream.ts`) and gitleaks', as data, and how they are applied
 * - `rules/moreFormats.ts` formats gitleaks has no rule for, as data of the same shape
 * - `rules/aiFormats.ts` keys of AI-model providers that the upstream rules miss, likewise
 * - `rules/truffleFormats.ts` formats TruffleHog detects that the upstream rules miss (webhook URLs,
 *   registry and CI tokens, email and payment provider keys), likewise
 * - `rules/encoded.ts` percent- and base64-encoded runs, decoded and scanned again
 * - `exact.ts`      registered secrets and the forms they are encoded or derived in
 * - `exactSearch.ts` where those forms are in a text (a shift table, not one alternation)
 * - `reach.ts`      how far before a window or page the context reaches
 * - `literals.ts`   the one search for every rule's trigger literals
 * - `scan.ts`       one pass that finds every span to mask
 * - `stable.ts`     masking again next to a mask until nothing changes (idempotence)
 * - `segments.ts`   consecutive events as one text, mapped back to the parts
 * - `json.ts`       every string of a JSON tree
 * - `skillCheck.ts` the skill-push check (`skillSecretProblem`) built on the same scan
 */
import type { ExactSecrets } from "./exact.ts"
import { makeExactSecrets, MIN_SECRET_LENGTH } from "./exact.ts"
import type { Finding } from "./findings.ts"
import { redactJson } from "./json.ts"
import { scan } from "./scan.ts"
import type { SegmentOptions } from "./segments.ts"
import { maskStable } from "./stable.ts"
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
  /**
   * A Redaction that also masks `value` (and its encodings, and its body after a known prefix).
   * Values under 6 characters are ignored. This same Redaction when `value` is registered already.
   */
  readonly withSecret: (value: string) => Redaction
  /** A Redaction that no longer masks `value` by value (its prefix may still); this one when it is not registered. */
  readonly withoutSecret: (value: string) => Redaction
  /** True when `text(s, false)` would change `s`. */
  readonly wouldChange: (s: string) => boolean
  /** The spans one scan of `s` finds, with what each is (`text` masks these, and more next to a mask when needed). */
  readonly findings: (s: string, liveEdge: boolean) => ReadonlyArray<Finding>
  /** The skill-push check with these rules and secrets: null when fine, else the message. */
  readonly skillProblem: (fileName: string, text: string) => string | null
}

const fromSecrets = (secrets: ExactSecrets): Redaction => {
  const scanWith = (s: string, liveEdge: boolean) => scan(s, liveEdge, secrets)
  const text = (s: string, liveEdge: boolean): string => maskStable(s, liveEdge, scanWith)
  // Kept identical when the list does not change: the Redactor's memo keeps a value only while
  // the Redaction it was made under stands, and a key seen again must not make them all stale.
  const self: Redaction = {
    text,
    json: (value) => redactJson(value, (s) => text(s, false)),
    segments: (parts, options) => redactSegments(parts, options, secrets),
    withSecret: (value) =>
      value.length < MIN_SECRET_LENGTH || secrets.values.includes(value) ? self : fromSecrets(makeExactSecrets([...secrets.values, value])),
    withoutSecret: (value) =>
      secrets.values.includes(value) ? fromSecrets(makeExactSecrets(secrets.values.filter((v) => v !== value))) : self,
    wouldChange: (s) => scan(s, false, secrets).length > 0,
    findings: (s, liveEdge) => scan(s, liveEdge, secrets),
    skillProblem: (fileName, s) => skillSecretProblem(fileName, s, secrets)
  }
  return self
}

export const makeRedaction = (secrets: ReadonlyArray<string>): Redaction => fromSecrets(makeExactSecrets(secrets))

export { skillSecretProblem } from "./skillCheck.ts"
export { isSecretName } from "./names.ts"
