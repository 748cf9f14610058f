/**
 * A format rule applied the plain way, as a reference for the redactor's: its regex searched
 * everywhere in a text (no trigger, no anchoring), each match's secret (its secret group, or the
 * first group that matched, or all of it) kept unless the rule's own filters drop it (least
 * entropy, allow-lists on the secret, the match or the line, stop-words, required matches, the
 * global allow-list and stop-words). Written from the rule data's documented meaning
 * (`src/domain/redact/rules/gitleaks/data.ts`), not from the redactor's code.
 */
import { type GitleaksRule, GLOBAL_ALLOW, GLOBAL_STOPWORDS } from "../../src/domain/redact/rules/gitleaks/data.ts"
import { shannon } from "../../src/domain/redact/rules/gitleaks/gitleaks.ts"

const GLOBAL = GLOBAL_ALLOW.map((s) => new RegExp(s))

const lineOf = (text: string, start: number, end: number): string => {
  const from = text.lastIndexOf("\n", start - 1) + 1
  const nl = text.indexOf("\n", end)
  return text.slice(from, nl < 0 ? text.length : nl)
}

/** The secrets `rule` finds in `text`, as the texts it would mask. */
export const referenceSecrets = (rule: GitleaksRule, text: string): ReadonlyArray<string> => {
  const regex = new RegExp(rule.regex, "gd")
  const out: Array<string> = []
  const allow = rule.allow ?? []
  for (const m of text.matchAll(regex)) {
    const indices = m.indices!
    let span: readonly [number, number] | undefined
    if ((rule.group ?? 0) > 0) span = indices[rule.group!]
    else {
      for (let g = 1; g < indices.length && span === undefined; g++) if (indices[g] !== undefined && indices[g]![1] > indices[g]![0]) span = indices[g]
      span ??= indices[0]
    }
    if (span === undefined || span[1] <= span[0]) continue
    const secret = text.slice(span[0], span[1])
    const lower = secret.toLowerCase()
    if ((rule.entropy ?? 0) > 0 && shannon(secret) < rule.entropy!) continue
    if (GLOBAL.some((g) => g.test(secret)) || GLOBAL_STOPWORDS.some((w) => lower.includes(w))) continue
    const dropped = allow.some((a) => {
      if (a.target === "stopwords") return a.words.some((w) => lower.includes(w))
      const re = new RegExp(a.regex)
      return re.test(a.target === "secret" ? secret : a.target === "match" ? m[0] : lineOf(text, m.index, m.index + m[0].length))
    })
    if (dropped || !(rule.require ?? []).every((q) => new RegExp(q).test(secret))) continue
    out.push(secret)
  }
  return out
}
