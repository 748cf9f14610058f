/**
 * The generated corpus (test/redact/corpus.ts): every secret in every context it fits, redacted as
 * one text: 0 leaks. A leak is any 8 characters of a secret's core still visible.
 */
import { describe, expect, it } from "vitest"
import { makeRedaction, MASK } from "../../src/domain/redact/redact.ts"
import { CONTEXTS, embed, FORMATS, leakedIn, makeSecrets } from "./corpus.ts"

const r = makeRedaction([])
const secrets = makeSecrets(FORMATS.length * 6)

describe("generated corpus", () => {
  it("has at least 200 secrets over at least 25 formats, each in at least 5 contexts", () => {
    expect(secrets.length).toBeGreaterThanOrEqual(200)
    expect(new Set(secrets.map((s) => s.format)).size).toBeGreaterThanOrEqual(25)
    for (const s of secrets) {
      expect(CONTEXTS.filter((c) => embed(s, c) !== undefined).length).toBeGreaterThanOrEqual(5)
    }
  })

  it("leaks nothing in any context", () => {
    const leaks: Array<string> = []
    let cases = 0
    for (const s of secrets) {
      for (const c of CONTEXTS) {
        const text = embed(s, c)
        if (text === undefined) continue
        cases++
        const out = r.text(text, false)
        const leak = leakedIn(out, s.core)
        if (leak !== undefined || !out.includes(MASK)) leaks.push(`${s.format} in ${c}: ${JSON.stringify(out)}`)
      }
    }
    expect(cases).toBeGreaterThanOrEqual(1000)
    expect(leaks).toEqual([])
  })

  it("masks the JSON tree form of every context that is JSON", () => {
    const leaks: Array<string> = []
    for (const s of secrets) {
      const text = embed(s, "json")
      if (text === undefined) continue
      const out = JSON.stringify(r.json(JSON.parse(text)))
      if (leakedIn(out, s.core) !== undefined) leaks.push(`${s.format}: ${out}`)
    }
    expect(leaks).toEqual([])
  })
})
