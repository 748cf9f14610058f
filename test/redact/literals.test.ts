/**
 * The many-literal search of the scan (`src/domain/redact/literals.ts`) against the plain
 * definition: every literal at every position, ASCII case folded, overlapping hits included.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type LiteralSpec, makeLiteralSearch } from "../../src/domain/redact/literals.ts"

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

  describe("conditions on a place", () => {
    const isWord = (c: string | undefined) => c !== undefined && /\w/.test(c)
    /** The plain definition of a literal with conditions holding at `at`. */
    const holds = (spec: LiteralSpec, text: string, at: number): boolean => {
      const l = spec.literal
      if (text.slice(at, at + l.length).replace(/[A-Z]/g, (c) => c.toLowerCase()) !== l.toLowerCase()) return false
      if (spec.cased === true && !text.startsWith(l, at)) return false
      if (spec.wordStart === true && isWord(text[at - 1]) && isWord(text[at])) return false
      if (spec.follow !== undefined) {
        for (let k = 0; k < (spec.followCount ?? 1); k++) {
          const c = text[at + l.length + k]
          if (c === undefined || !spec.follow.includes(c)) return false
        }
      }
      return true
    }
    const naiveSpecs = (specs: ReadonlyArray<LiteralSpec>, text: string): Array<string> => {
      const out: Array<string> = []
      const s = makeLiteralSearch(specs)
      const order = s.specs.map((spec, id) => ({ spec, id })).sort((a, b) => b.spec.literal.length - a.spec.literal.length)
      for (let at = 0; at < text.length; at++) for (const { spec, id } of order) if (holds(spec, text, at)) out.push(`${at}:${id}`)
      return out
    }
    const foundSpecs = (specs: ReadonlyArray<LiteralSpec>, text: string): Array<string> => {
      const s = makeLiteralSearch(specs)
      const out: Array<string> = []
      s.search(text, (id, at) => out.push(`${at}:${id}`))
      return out
    }

    it("checks the case written, a word start and the characters after, and nothing else", () => {
      const specs: Array<LiteralSpec> = [
        { literal: "AC", cased: true, wordStart: true },
        { literal: "00", wordStart: true, follow: "0123456789abcdef", followCount: 3 },
        { literal: "key", follow: "=:" },
        { literal: "key" }
      ]
      const s = makeLiteralSearch(specs)
      const hits = (text: string) => {
        const out: Array<string> = []
        s.search(text, (id, at) => out.push(`${at}:${s.specs[id]!.literal}${s.specs[id]!.follow === undefined ? "" : "+"}`))
        return out
      }
      expect(hits("AC1 ac1 bAC1 -AC1")).toEqual(["0:AC", "14:AC"])
      expect(hits("00abc 100abc :00ab 00ab1 00")).toEqual(["0:00+", "19:00+"])
      expect(hits("key= key x KEY:")).toEqual(["0:key+", "0:key", "5:key", "11:key+", "11:key"])
    })

    it("finds a literal of two or three by the characters it wants after it, folded, and not past the end", () => {
      // The tables hold a short literal only under the threes (and fourths) its `follow` allows.
      const s = makeLiteralSearch([{ literal: "ac", follow: "Bx" }, { literal: "key", follow: "=Z" }, "ke"])
      const hits = (text: string) => {
        const out: Array<string> = []
        s.search(text, (id, at) => out.push(`${at}:${s.specs[id]!.literal}`))
        return out
      }
      expect(hits("aCB acb acx ACX act ac")).toEqual(["0:ac", "8:ac"])
      expect(hits("KEY= keyz keyZ key")).toEqual(["0:key", "0:ke", "5:ke", "10:key", "10:ke", "15:ke"])
    })

    it("agrees with the plain definition on random literals, conditions and text", () => {
      const alphabet = fc.constantFrom(..."abAB0_-=: .\u00e9".split(""))
      const spec: fc.Arbitrary<LiteralSpec> = fc.record(
        {
          literal: fc.stringOf(fc.constantFrom(..."abAB0_-=".split("")), { minLength: 2, maxLength: 4 }),
          cased: fc.boolean(),
          wordStart: fc.boolean(),
          follow: fc.stringOf(fc.constantFrom(..."abA0_=:".split("")), { minLength: 1, maxLength: 3 }),
          followCount: fc.integer({ min: 1, max: 3 })
        },
        { requiredKeys: ["literal"] }
      ).map((s) => (s.follow === undefined ? (({ followCount: _, ...rest }) => rest)(s) : s))
      fc.assert(
        fc.property(fc.array(spec, { minLength: 1, maxLength: 6 }), fc.stringOf(alphabet, { maxLength: 50 }), (specs, text) => {
          expect(foundSpecs(specs, text)).toEqual(naiveSpecs(specs, text))
        }),
        { numRuns: 300, seed: 23 }
      )
    })

    it("gives one id to a literal given twice with the same conditions, and tells which", () => {
      const s = makeLiteralSearch([{ literal: "Key", wordStart: true }, "key", { literal: "KEY", wordStart: true }, { literal: "key", cased: true }])
      expect(s.given[0]).toBe(s.given[2])
      expect(new Set(s.given).size).toBe(3)
    })

    it("refuses conditions it cannot check", () => {
      expect(() => makeLiteralSearch([{ literal: "ab", follow: "" }])).toThrow(/ASCII characters to follow/)
      expect(() => makeLiteralSearch([{ literal: "ab", follow: "\u00e9" }])).toThrow(/ASCII characters to follow/)
      expect(() => makeLiteralSearch([{ literal: "ab", followCount: 2 }])).toThrow(/count of characters/)
      expect(() => makeLiteralSearch([{ literal: "ab", follow: "x", followCount: 0 }])).toThrow(/count of characters/)
    })
  })
})
