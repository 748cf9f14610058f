/**
 * Tokens recognised by a known prefix (docs/REFERENCE.md). A token is the prefix, at the start
 * of a word (not preceded by a letter or digit), followed by a run of body characters. Outside the
 * live edge the run must be at least `min` long: real tokens are far longer, and the minimum keeps
 * names such as `hf_hub_download`, `sk-learn` or `AKIAVERSION` out. At the live edge any run that
 * reaches the end of the text counts, even an empty one: the rest of the token may not be stored yet.
 *
 * A part of a prefix at the end of the text (`gh`, `xox`) is not masked: it holds nothing secret
 * and would mask ordinary words; the token is masked as soon as its whole prefix is there.
 */
import { BRIDGE_KEY_PREFIX } from "../bridgeKeys.ts"
import type { RunCache } from "./bounded.ts"

export interface KnownPrefix {
  readonly prefix: string
  /** Characters of the token's body. */
  readonly body: RegExp
  /** Minimum body length outside the live edge. */
  readonly min: number
  /** What the token is, for the skill-push message. */
  readonly label: string
}

const ALNUM = /[A-Za-z0-9]/
const ALNUM_DASH_UNDERSCORE = /[A-Za-z0-9_-]/
const ALNUM_UNDERSCORE = /[A-Za-z0-9_]/
const ALNUM_DASH = /[A-Za-z0-9-]/
const UPPER_DIGIT = /[A-Z0-9]/

const github = (p: string): KnownPrefix => ({ prefix: p, body: ALNUM, min: 20, label: "a GitHub token" })
const slack = (p: string): KnownPrefix => ({ prefix: p, body: ALNUM_DASH, min: 10, label: "a Slack token" })

/** Longer prefixes first, so `sk-ant-` names the token before `sk-` does. */
export const KNOWN_PREFIXES: ReadonlyArray<KnownPrefix> = [
  { prefix: BRIDGE_KEY_PREFIX, body: ALNUM, min: 20, label: "a bridge client key" },
  { prefix: "github_pat_", body: ALNUM_UNDERSCORE, min: 22, label: "a GitHub token" },
  { prefix: "api_org_", body: ALNUM, min: 20, label: "a Hugging Face token" },
  { prefix: "hf_", body: ALNUM, min: 20, label: "a Hugging Face token" },
  { prefix: "sk-ant-", body: ALNUM_DASH_UNDERSCORE, min: 20, label: "an Anthropic key" },
  { prefix: "sk-proj-", body: ALNUM_DASH_UNDERSCORE, min: 20, label: "an OpenAI key" },
  { prefix: "sk-", body: ALNUM_DASH_UNDERSCORE, min: 20, label: "an API key (sk-)" },
  { prefix: "sk_live_", body: ALNUM, min: 16, label: "a Stripe key" },
  { prefix: "rk_live_", body: ALNUM, min: 16, label: "a Stripe key" },
  { prefix: "sk_test_", body: ALNUM, min: 16, label: "a Stripe key" },
  { prefix: "whsec_", body: ALNUM, min: 24, label: "a Stripe webhook secret" },
  github("ghp_"), github("gho_"), github("ghu_"), github("ghs_"), github("ghr_"),
  { prefix: "glpat-", body: ALNUM_DASH_UNDERSCORE, min: 20, label: "a GitLab token" },
  slack("xoxb-"), slack("xoxa-"), slack("xoxp-"), slack("xoxr-"), slack("xoxs-"), slack("xapp-"),
  { prefix: "AKIA", body: UPPER_DIGIT, min: 16, label: "an AWS access key id" },
  { prefix: "ASIA", body: UPPER_DIGIT, min: 16, label: "an AWS access key id" },
  { prefix: "AIza", body: ALNUM_DASH_UNDERSCORE, min: 30, label: "a Google API key" }
]

const isWordChar = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)

export interface TokenHit {
  readonly start: number
  readonly end: number
  readonly known: KnownPrefix
}

/** A letter or digit: a token prefix must not follow one. */
export const isAlnum = (c: string): boolean => isWordChar(c.charCodeAt(0))

/**
 * The known-prefix token starting at `at`, if any (the caller has checked that a word may start
 * there). `liveEdge`: a token whose body runs to the end of the text counts whatever its length.
 */
export const tokenAt = (text: string, at: number, liveEdge: boolean, runs: RunCache): TokenHit | undefined => {
  for (const known of KNOWN_PREFIXES) {
    if (!text.startsWith(known.prefix, at)) continue
    const bodyStart = at + known.prefix.length
    const end = runs.end(text, bodyStart, known.body)
    if (end - bodyStart >= known.min || (liveEdge && end === text.length)) return { start: at, end, known }
  }
  return undefined
}

/** True when `s` holds a known prefix at the start of a word, whatever follows it. */
export const holdsKnownPrefix = (s: string): boolean =>
  KNOWN_PREFIXES.some((k) => {
    for (let i = s.indexOf(k.prefix); i >= 0; i = s.indexOf(k.prefix, i + 1)) {
      if (i === 0 || !isWordChar(s.charCodeAt(i - 1))) return true
    }
    return false
  })
