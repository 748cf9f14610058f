/**
 * Live edge: text that ends at the newest stored event of an unfinished run may stop inside a
 * token. Every prefix of every known-prefix token at the end of the text is masked through the end
 * once its whole prefix is there; a part of a prefix alone (`gh`) is left, as it holds nothing
 * secret and would mask ordinary words.
 */
import { describe, expect, it } from "vitest"
import { KNOWN_PREFIXES } from "../../src/domain/redact/prefixes.ts"
import { makeRedaction, MASK } from "../../src/domain/redact/redact.ts"
import { FORMATS, makeSecrets } from "./corpus.ts"

const r = makeRedaction([])
const tokens = makeSecrets(FORMATS.length * 6).filter((s) => s.prefix !== undefined)
const LEAD = "The run is still streaming: "

describe("live edge", () => {
  it("covers every known-prefix format", () => {
    expect(new Set(tokens.map((t) => t.format)).size).toBeGreaterThanOrEqual(25)
  })

  it("masks every cut of every token after its prefix, through the end", () => {
    const problems: Array<string> = []
    for (const t of tokens) {
      for (let n = t.prefix!.length; n <= t.value.length; n++) {
        const text = LEAD + t.value.slice(0, n)
        const out = r.text(text, true)
        if (out !== LEAD + MASK) problems.push(`${t.format} cut at ${n}: ${JSON.stringify(out)}`)
      }
    }
    expect(problems).toEqual([])
  })

  it("leaves a cut inside the prefix alone, unless it completes a shorter prefix (sk-proj- cut at sk-)", () => {
    for (const t of tokens) {
      for (let n = 1; n < t.prefix!.length; n++) {
        const cut = t.value.slice(0, n)
        const text = LEAD + cut
        const completes = KNOWN_PREFIXES.some((k) => cut.startsWith(k.prefix))
        expect(r.text(text, true), cut).toBe(completes ? LEAD + MASK : text)
      }
    }
  })

  it("masks the same cuts when the token is split over the last events of a page", () => {
    const problems: Array<string> = []
    for (const t of tokens.slice(0, 60)) {
      for (let n = t.prefix!.length; n <= t.value.length; n++) {
        const cut = t.value.slice(0, n)
        const half = Math.floor(n / 2)
        const parts = [LEAD + cut.slice(0, half), cut.slice(half)]
        const out = r.segments(parts, { liveEdge: true })
        const visible = out.join("").split(MASK).join("")
        if (visible.length > LEAD.length) problems.push(`${t.format} cut at ${n}: ${JSON.stringify(out)}`)
      }
    }
    expect(problems).toEqual([])
  })

  it("is only a live-edge rule: a short cut token in finished text stays", () => {
    expect(r.text("ends with ghp_abc", false)).toBe("ends with ghp_abc")
    expect(r.text("ends with ghp_abc", true)).toBe(`ends with ${MASK}`)
    // Not at the end of the text: no mask either way.
    expect(r.text("ghp_abc is short", true)).toBe("ghp_abc is short")
  })

  it("masks a value, a URL password and a credential cut at the end", () => {
    expect(r.text("export HF_TOKEN=ab", true)).toBe(`export HF_TOKEN=${MASK}`)
    expect(r.text("git clone https://deploy:hunt", true)).toBe(`git clone https://deploy:${MASK}`)
    expect(r.text("Authorization: Bearer ab", true)).toBe(`Authorization: Bearer ${MASK}`)
    expect(r.text("curl -H 'Authorization: Bearer ab", false)).toBe("curl -H 'Authorization: Bearer ab")
  })

  it("masks the start of a registered secret cut at the end", () => {
    const secret = "hermes-key-4f9a8b7c6d5e"
    const withSecret = makeRedaction([secret])
    for (let n = 4; n < secret.length; n++) {
      expect(withSecret.text(`key is ${secret.slice(0, n)}`, true)).toBe(`key is ${MASK}`)
    }
    expect(withSecret.text("key is her", true)).toBe("key is her")
  })
})
