/**
 * The test corpus generated from the format rules themselves (`FORMAT_RULES`: gitleaks' rules and
 * the bridge's own of the same shape): per rule, a fake secret drawn from the rule's own regex
 * (`sampleFromRegex.ts`), checked against that regex and the rule's least entropy, with the part
 * the rule calls the secret as the core that must never show. A "name = value" rule's value is
 * given under a name made of its keyword (`ADAFRUIT_API_KEY`), the way such values are found; a
 * rule of the "service name, then `=` or `:`, then the value" kind, under the service's name as a
 * label (`adafruit=…`, `"adafruit": "…"`: no secret-name rule masks these, the rule itself must).
 *
 * Deterministic: a seeded PRNG per rule. A rule whose regex the generator cannot satisfy in
 * `TRIES` draws has no sample; `ruleFormats.test.ts` names them.
 */
import { shannon } from "../../src/domain/redact/rules/gitleaks/gitleaks.ts"
import type { GitleaksRule } from "../../src/domain/redact/rules/gitleaks/data.ts"
import type { Secret } from "./corpus.ts"
import { mulberry32 } from "./corpus.ts"
import { sampleFromRegex } from "./sampleFromRegex.ts"

const TRIES = 40
const NAME_PREFIX = "[\\w.-]{0,50}?"
/** The "name, then an assignment" part of upstream's keyword rules (`adafruit … = value`). */
const ASSIGNMENT = /\(\?:=\|>\|:\{1,3\}=\|/

export interface RuleSample extends Secret {
  readonly rule: string
  /** The text as embedded alone (for a "name = value" rule, `NAME=value` under its keyword's name). */
  readonly sample: string
  /** What was drawn from the rule's regex, which that regex matches. */
  readonly drawn: string
}

const seedOf = (id: string): number => [...id].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0, 2166136261)

/** The secret span of a match, as the redactor takes it (its secret group, or the first group that matched, or all). */
const secretOf = (rule: GitleaksRule, m: RegExpExecArray): string => {
  if ((rule.group ?? 0) > 0) return m[rule.group!] ?? ""
  for (let g = 1; g < m.length; g++) if (m[g] !== undefined && m[g] !== "") return m[g]!
  return m[0]
}

/** A sample of `rule`, or undefined when none of `TRIES` draws satisfies its regex and entropy. */
export const ruleSample = (rule: GitleaksRule): RuleSample | undefined => {
  const rng = mulberry32(seedOf(rule.id))
  const regex = new RegExp(rule.regex)
  const named = rule.regex.startsWith(NAME_PREFIX)
  for (let n = 0; n < TRIES; n++) {
    let sample: string
    try {
      sample = sampleFromRegex(rule.regex, rng)
    } catch {
      return undefined
    }
    // The token as it stands in text; it must match alone and followed by a space (as in the
    // contexts), with the same secret (or one that runs on over the space), not ending in an escape.
    const value = sample.trim()
    const m = regex.exec(value)
    const spaced = regex.exec(`${value} `)
    if (m === null || spaced === null || value.endsWith("\\")) continue
    const core = secretOf(rule, m)
    if (secretOf(rule, spaced).trim() !== core || core.length < 4 || shannon(core) < (rule.entropy ?? 0)) continue
    const keyword = rule.keywords[0] ?? "service"
    if (ASSIGNMENT.test(rule.regex)) {
      // A "service name = value" rule: the value under the service's own name, as a label
      // (`adafruit=…`, `"adafruit": "…"`), which no secret-name rule masks; else under the
      // name the drawn text starts with.
      const label = [keyword.replace(/[^A-Za-z0-9_]+/g, "_"), /^[\w.-]+/.exec(value)?.[0] ?? ""].find((n) => {
        if (n.length === 0) return false
        const as = regex.exec(`${n}=${core} `)
        return as !== null && secretOf(rule, as) === core
      })
      if (label === undefined) continue
      return { rule: rule.id, sample: `${label}=${core}`, drawn: value, format: rule.id, placement: "named", value: core, core, prefix: undefined, name: label }
    }
    if (named) {
      const name = `${keyword.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}_API_KEY`
      return { rule: rule.id, sample: `${name}=${core}`, drawn: value, format: rule.id, placement: "named", value: core, core, prefix: undefined, name }
    }
    return { rule: rule.id, sample: value, drawn: value, format: rule.id, placement: "shape", value, core, prefix: undefined, name: "CREDENTIAL" }
  }
  return undefined
}
