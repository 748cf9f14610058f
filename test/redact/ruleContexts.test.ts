/**
 * A format rule fires wherever its own regex matches (issue 37 item 7). For every rule of
 * `FORMAT_RULES` (Betterleaks' and gitleaks' carried over, and the bridge's own), the sample drawn
 * from its regex (`ruleCorpus.ts`) is written in several contexts: bare, quoted, under a bare
 * `key: "…"`, as a JSON value, after `=`, inside prose; both as drawn (with whatever name the
 * regex put before the value) and as the secret alone. Where the rule's regex, searched anywhere
 * in that text and filtered as the rule says (`ruleReference.ts`: entropy, allow-lists, stop-words,
 * required matches), finds a secret, the redactor must mask it. Before the fix, Betterleaks'
 * `azure-storage-account-key` did not fire in `key: "…=="`: its keyword `key` was read from the
 * first of two places in the regex (inside `AccountKey`), so the match was only tried 7 characters
 * before every `key`.
 */
import { describe, expect, it } from "vitest"
import { makeRedaction } from "../../src/domain/redact/redact.ts"
import { FORMAT_RULES } from "../../src/domain/redact/rules/gitleaks/gitleaks.ts"
import { leakFinder } from "./corpus.ts"
import { ruleSample, type RuleSample } from "./ruleCorpus.ts"
import { referenceSecrets } from "./ruleReference.ts"

const r = makeRedaction([])

/** The texts a sample is written in, by name. */
const contexts = (s: RuleSample): ReadonlyArray<readonly [string, string]> => {
  const forms: ReadonlyArray<readonly [string, string]> = s.drawn === s.core ? [["", s.core]] : [["drawn ", s.drawn], ["secret ", s.core]]
  return forms.flatMap(([form, v]) => [
    [`${form}bare`, v],
    [`${form}quoted`, `"${v}"`],
    [`${form}under key:`, `key: "${v}"`],
    [`${form}JSON value`, JSON.stringify({ value: v })],
    [`${form}after =`, `VALUE=${v}`],
    [`${form}in prose`, `While checking the logs I found ${v} in the output, then moved on.`]
  ] as const)
}

/** Rules the regex of which matches where the redactor cannot reach, and why. */
const GAPS: ReadonlyMap<string, string> = new Map([
  ["gcp-application-default-credentials", "the match is a whole JSON object; the secrets in it are masked by their names"],
  ["gcp-service-account", "the match is a whole JSON object; its private key is masked by the PEM and name rules"]
])

const SAMPLES: ReadonlyArray<RuleSample> = FORMAT_RULES.flatMap((rule) => {
  const s = ruleSample(rule)
  return s === undefined ? [] : [s]
})

describe.each(SAMPLES.filter((s) => !GAPS.has(s.rule)).map((s) => [s.rule, s] as const))("%s", (id, s) => {
  it("is masked wherever its own regex finds it", () => {
    const rule = FORMAT_RULES.find((x) => x.id === id)!
    const problems: Array<string> = []
    let found = 0
    for (const [name, text] of contexts(s)) {
      const secrets = referenceSecrets(rule, text)
      found += secrets.length
      const out = r.text(text, false)
      for (const secret of secrets) {
        const leak = leakFinder(secret)(out)
        if (leak !== undefined) problems.push(`${name}: ${JSON.stringify(text)} → ${JSON.stringify(out)}`)
      }
    }
    expect(problems).toEqual([])
    // The regex finds its own sample at least as drawn.
    expect(found).toBeGreaterThan(0)
  })
})

it("names only gaps that are real", () => {
  const closed = [...GAPS.keys()].filter((id) => {
    const s = SAMPLES.find((x) => x.rule === id)
    const rule = FORMAT_RULES.find((x) => x.id === id)
    if (s === undefined || rule === undefined) return true
    return contexts(s).every(([, text]) => referenceSecrets(rule, text).every((secret) => leakFinder(secret)(r.text(text, false)) === undefined))
  })
  expect(closed).toEqual([])
})
