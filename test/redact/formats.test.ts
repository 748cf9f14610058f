/**
 * Formats from the gitleaks rule set (`src/domain/redact/rules/gitleaks/`): fake tokens of the
 * formats a probe found passing unmasked, in every context of the corpus and cut at every offset
 * across two events; and every rule has a trigger the scan looks for.
 */
import { describe, expect, it } from "vitest"
import { makeRedaction } from "../../src/domain/redact/redact.ts"
import { GITLEAKS_RULES } from "../../src/domain/redact/rules/gitleaks/data.ts"
import { FORMAT_RULES, TRIGGER_LITERALS } from "../../src/domain/redact/rules/gitleaks/gitleaks.ts"
import { chars, CONTEXTS, embed, leakFinder, mulberry32 } from "./corpus.ts"

const r = makeRedaction([])
const rng = mulberry32(1515)
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
const HEX = "0123456789abcdef"



/** Fake tokens: [format, token, the part that must never show]. */
const TOKENS: ReadonlyArray<readonly [string, string, string]> = [
  ((b) => ["npm", `npm_${b}`, b] as const)(chars(rng, ALNUM, 36)),
  ((a, b) => ["sendgrid", `SG.${a}.${b}`, `${a}.${b}`] as const)(chars(rng, ALNUM, 22), chars(rng, ALNUM, 43)),
  ((b) => ["slack webhook", `https://hooks.slack.com/services/T${b.slice(0, 8)}/B${b.slice(8, 18)}/${b.slice(18)}`, b.slice(18)] as const)(chars(rng, ALNUM, 42)),
  ((b) => ["twilio", `SK${b}`, b] as const)(chars(rng, HEX, 32)),
  ((b) => ["shopify", `shpat_${b}`, b] as const)(chars(rng, HEX, 32)),
  ((b) => ["pypi", `pypi-AgEIcHlwaS5vcmc${b}`, b] as const)(chars(rng, ALNUM, 60)),
  ((b) => ["vault", `hvs.${b}`, b] as const)(chars(rng, ALNUM, 95)),
  ((b) => ["gitlab trigger", `glptt-${b}`, b] as const)(chars(rng, HEX, 40)),
  ((b) => ["stripe test", `sk_test_${b}`, b] as const)(chars(rng, ALNUM, 30)),
  ((b) => ["stripe restricted", `rk_prod_${b}`, b] as const)(chars(rng, ALNUM, 30)),
  ((b) => ["azure ad", `abc8Q~${b}`, b] as const)(chars(rng, ALNUM, 32))
]

describe("gitleaks formats", () => {
  it(`every one of the ${FORMAT_RULES.length} rules has a trigger, and all but the "name = value" ones one the scan looks for`, () => {
    const triggered = new Set(TRIGGER_LITERALS.map((t) => t.rule))
    expect(FORMAT_RULES.filter((rule) => !triggered.has(rule.id)).map((rule) => rule.id)).toEqual([])
    expect(GITLEAKS_RULES.length).toBeGreaterThanOrEqual(200)
    const scanned = new Set(TRIGGER_LITERALS.filter((t) => t.scanned).map((t) => t.rule))
    const unscanned = FORMAT_RULES.filter((rule) => !rule.regex.startsWith("[\\w.-]{0,50}?") && !scanned.has(rule.id)).map((rule) => rule.id)
    // Even `facebook-access-token`, whose regex has no literal of 3 (`\d{15,16}(\||%)…`): its
    // separator after each last digit (`7|`, `7%`) is looked for.
    expect(unscanned).toEqual([])
  })

  for (const [format, token, core] of TOKENS) {
    it(`masks ${format} in every context and across every cut`, () => {
      const leak = leakFinder(core)
      const secret = { format, placement: "shape" as const, value: token, core, prefix: undefined, name: "CREDENTIAL" }
      for (const context of CONTEXTS) {
        const text = embed(secret, context)!
        expect(leak(r.text(text, false)), `${format} in ${context}: ${text}`).toBeUndefined()
        const at = text.indexOf(token)
        if (at < 0) continue // URL-encoded in this context
        for (let cut = at; cut <= at + token.length; cut++) {
          const parts = r.segments([text.slice(0, cut), text.slice(cut)], {})
          expect(leak(parts.join("")), `${format} in ${context} cut at ${cut - at}`).toBeUndefined()
        }
      }
    })
  }
})

describe("formats no gitleaks rule covers", () => {
  it("masks a Stripe webhook secret and a passphrase", () => {
    const whsec = `whsec_${chars(rng, ALNUM, 32)}`
    for (const text of [`STRIPE_WEBHOOK=${whsec}`, `the signing secret is ${whsec}.`, JSON.stringify({ stdout: whsec })]) {
      expect(leakFinder(whsec.slice(6))(r.text(text, false)), text).toBeUndefined()
    }
    for (const text of ["passphrase=Tr0ub4dor&3x", "GPG_PASSPHRASE: 'correct horse battery'", '{"ssh_key_passphrase": "k9Fq2LmZ"}']) {
      expect(r.text(text, false), text).toContain("***REDACTED***")
    }
  })
})
