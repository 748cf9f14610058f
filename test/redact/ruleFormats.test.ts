/**
 * The corpus generated from the format rules themselves (`ruleCorpus.ts`): one fake secret per rule
 * of `FORMAT_RULES` (gitleaks' rules and the bridge's own), drawn from the rule's regex, masked
 * alone, in every context of the corpus (JSON tool output, YAML, a shell line, a URL query, a log
 * line, Markdown; a "name = value" rule's value under its name), and cut at every offset across two
 * events and at strided offset pairs across three (every third first cut, every seventh second), in every context that holds it verbatim.
 *
 * What is not covered is named in `GAPS`, each with why; a gap that closes fails the test, so the
 * list stays true.
 */
import { describe, expect, it } from "vitest"
import { makeRedaction, MASK } from "../../src/domain/redact/redact.ts"
import { FORMAT_RULES } from "../../src/domain/redact/rules/gitleaks/gitleaks.ts"
import { CONTEXTS, type ContextName, embed, leakFinder } from "./corpus.ts"
import { ruleSample, type RuleSample } from "./ruleCorpus.ts"

const r = makeRedaction([])

/** Rule, or rule in a context, that is not masked, and why. */
const GAPS: ReadonlyMap<string, string> = new Map([
  ["gcp-application-default-credentials", "the match is a whole JSON object; the secrets in it (`client_secret`, `refresh_token`) are masked by their names, the rest of the object is not secret"],
  ["gcp-service-account", "the match is a whole JSON object; its `private_key` is masked by the PEM and name rules, the rest of the object is not secret"],
  ["influxdb-api-token in url", "the drawn name holds quotes, which end a percent-encoded run (`encoded.ts`); a real query has none"]
])

const SAMPLES: ReadonlyArray<RuleSample> = FORMAT_RULES.flatMap((rule) => {
  const s = ruleSample(rule)
  return s === undefined ? [] : [s]
})

const gap = (s: RuleSample, context?: ContextName): boolean =>
  GAPS.has(s.rule) || (context !== undefined && GAPS.has(`${s.rule} in ${context}`))

it(`draws a sample from the regex of each of the ${FORMAT_RULES.length} rules`, () => {
  expect(FORMAT_RULES.filter((rule) => !SAMPLES.some((s) => s.rule === rule.id)).map((rule) => rule.id)).toEqual([])
  for (const rule of FORMAT_RULES) expect(new RegExp(rule.regex).test(SAMPLES.find((s) => s.rule === rule.id)!.drawn), rule.id).toBe(true)
  // The bar: at least 400 formats, each covered below.
  expect(SAMPLES.filter((s) => !gap(s)).length).toBeGreaterThanOrEqual(400)
})

it("names only gaps that are real", () => {
  const closed = [...GAPS.keys()].filter((key) => {
    const [rule, context] = key.split(" in ") as [string, ContextName | undefined]
    const s = SAMPLES.find((x) => x.rule === rule)
    if (s === undefined) return true
    const text = context === undefined ? s.sample : embed(s, context)!
    return leakFinder(s.core)(r.text(text, false)) === undefined
  })
  expect(closed).toEqual([])
})

describe.each(SAMPLES.map((s) => [s.rule, s] as const))("%s", (_, s) => {
  const leak = leakFinder(s.core)

  it("is masked alone and in every context", () => {
    const problems: Array<string> = []
    if (!gap(s) && leak(r.text(s.sample, false)) !== undefined) problems.push(`alone: ${s.sample}`)
    // As drawn from the regex (for a "name = value" rule, with the separators the regex allows).
    if (!gap(s) && leak(r.text(s.drawn, false)) !== undefined) problems.push(`as drawn: ${s.drawn}`)
    for (const context of CONTEXTS) {
      if (gap(s, context)) continue
      const text = embed(s, context)!
      const out = r.text(text, false)
      if (leak(out) !== undefined) problems.push(`${context}: ${out}`)
    }
    expect(problems).toEqual([])
  })

  it("is masked cut at every offset across two events, and across three", () => {
    const problems: Array<string> = []
    for (const context of CONTEXTS) {
      if (gap(s, context)) continue
      const text = embed(s, context)!
      const at = text.indexOf(s.value)
      if (at < 0) continue // encoded in this context: covered above
      const from = Math.max(0, at - 12)
      const to = at + s.value.length
      for (let k = from; k <= to; k++) {
        const parts = [text.slice(0, k), text.slice(k)]
        const outs = r.segments(parts, {})
        if (leak(outs.join("")) !== undefined) problems.push(`${context} cut at ${k - at}: ${JSON.stringify(outs)}`)
        // A part that holds a piece of the secret shows a mask.
        const coreAt = text.indexOf(s.core)
        if (coreAt >= 0 && k > coreAt && k < coreAt + s.core.length && !outs.every((o) => o.includes(MASK))) {
          problems.push(`${context} cut at ${k - at}: a piece unmasked ${JSON.stringify(outs)}`)
        }
      }
      // Three events: both cuts strided.
      for (let i = from; i <= to; i += 3) {
        for (let j = i + 1; j <= to; j += 7) {
          const outs = r.segments([text.slice(0, i), text.slice(i, j), text.slice(j)], {})
          if (leak(outs.join("")) !== undefined) problems.push(`${context} cut at ${i - at},${j - at}: ${JSON.stringify(outs)}`)
        }
      }
    }
    expect(problems.slice(0, 5)).toEqual([])
  })
})
