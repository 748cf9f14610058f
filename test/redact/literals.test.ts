/**
 * The many-literal search of the scan (`src/domain/redact/literals.ts`) against the plain
 * definition: every literal at every position, ASCII case folded, overlapping hits included.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeLiteralSearch } from "../../src/domain/redact/literals.ts"

const naive = (literals: ReadonlyArray<string>, text: string): Array<string> => {
  const out: Array<string> = []
  const lower = text.replace(/[A-Z]/g, (c) => c.toLowerCase())
  for (let at = 0; at < text.length; at++) {
    for (const l of [...literals].sort((a, b) => b.length - a.length)) if (lower.startsWith(l, at)) out.push(`${at}:${l}`)
  }
  return out
}

const found = (literals: ReadonlyArray<string>, text: string): Array<string> => {
  const s = makeLiteralSearch(literals)
  const out: Array<string> = []
  s.search(text, (id, at) => out.push(`${at}:${s.literals[id]}`))
  return out
}

describe("literal search", () => {
  it("finds every literal at every position, case folded, overlapping ones too", () => {
    const literals = ["key", "ke", "sk-", "sk", "s.", "-----begin ", "://", "q~"]
    const text = "KEY sk-SK. ssk-x q~Q~ -----BEGIN x://y keke"
    expect(found(literals, text)).toEqual(naive(literals, text))
    expect(found(literals, text)).toContain("0:key")
    expect(found(literals, text)).toContain("0:ke")
  })

  it("agrees with the plain definition on random text", () => {
    const alphabet = fc.constantFrom(..."abkeyKEY-_.:/ \n~ſK\u00e9".split(""))
    fc.assert(
      fc.property(
        fc.array(fc.stringOf(alphabet, { minLength: 2, maxLength: 5 }).filter((l) => /^[\x01-\x7f]+$/.test(l)), { minLength: 1, maxLength: 8 }),
        fc.stringOf(alphabet, { maxLength: 60 }),
        (literals, text) => {
          const lower = [...new Set(literals.map((l) => l.toLowerCase()))]
          expect(found(lower, text)).toEqual(naive(lower, text))
        }
      ),
      { numRuns: 300, seed: 14 }
    )
  })

  it("does not fold characters outside ASCII to ASCII letters (as a /i regex without u does not)", () => {
    expect(found(["sk"], "ſk \u212Ay sK")).toEqual(["6:sk"])
    expect(found(["ky"], "\u212Ay")).toEqual([])
  })

  it("refuses a literal it cannot search for", () => {
    expect(() => makeLiteralSearch(["k"])).toThrow(/not a searchable literal/)
    expect(() => makeLiteralSearch(["clé"])).toThrow(/not a searchable literal/)
  })

  it("handles texts shorter than a literal and a start past the beginning", () => {
    expect(found(["key"], "")).toEqual([])
    expect(found(["key"], "k")).toEqual([])
    expect(found(["key"], "ke")).toEqual([])
    const s = makeLiteralSearch(["key"])
    const out: Array<number> = []
    s.search("key key", (_, at) => out.push(at), 1)
    expect(out).toEqual([4])
  })

  it("at the end of the text, a three that only longer literals start finds nothing, and a literal of three is found", () => {
    // The fourth-character filter finds no fourth character there (its read past the end gives NaN).
    expect(found(["keys"], "a key")).toEqual([])
    expect(found(["keys"], "KEYS")).toEqual(["0:keys"])
    expect(found(["keys", "key"], "a key")).toEqual(["2:key"])
    expect(found(["keys", "ke"], "a key")).toEqual(["2:ke"])
  })
})
