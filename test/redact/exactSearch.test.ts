/**
 * The search for registered secrets (`exactSearch.ts`) agrees with the plain definition, one regex
 * alternation of every variant longest first tried at every position, on random texts made of the
 * variants' own pieces; and its live-edge tail is the longest end of the text (4 or more characters)
 * that a variant starts with, as a loop over every variant finds it.
 */
import { describe, expect, it } from "vitest"
import { secretVariants } from "../../src/domain/redact/exact.ts"
import { makeExactSearch } from "../../src/domain/redact/exactSearch.ts"
import { newKey } from "../../src/services/auth/apiKeys.ts"
import { mulberry32 } from "./corpus.ts"

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&")

const plainHits = (variants: ReadonlyArray<string>, text: string): Array<[number, number]> => {
  const sorted = [...variants].sort((a, b) => b.length - a.length)
  const re = new RegExp(sorted.map(escapeRegex).join("|"), "g")
  const out: Array<[number, number]> = []
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    out.push([m.index, m.index + m[0].length])
    re.lastIndex = m.index + 1
  }
  return out
}

const plainTail = (variants: ReadonlyArray<string>, text: string): number => {
  let best = 0
  for (const v of variants) {
    for (let n = Math.min(v.length - 1, text.length); n >= 4; n--) {
      if (text.endsWith(v.slice(0, n))) {
        best = Math.max(best, n)
        break
      }
    }
  }
  return best
}

// Long variants (bridge keys, a Hermes key with odd characters, non-ASCII), short ones, and
// repetitive ones that overlap themselves and each other, long and short at one position.
const secrets = [newKey(), newKey(), "hermes key/with+odd=chars&\"quotes\"", "pässwörd mit Ümlauten 42", "aaaaaaab", "aaaaab", "aaaaaaaaaaaaaaaaaaab", "aaaaaaaaaaaaaaaaab"]
const variants = [...new Set(secrets.flatMap(secretVariants))]

describe("the registered-secret search", () => {
  const search = makeExactSearch(variants)
  const rng = mulberry32(2718)
  const piece = () => {
    const v = variants[Math.floor(rng() * variants.length)]!
    const a = Math.floor(rng() * v.length)
    return rng() < 0.4 ? v : v.slice(a, a + 1 + Math.floor(rng() * (v.length - a)))
  }
  const texts = Array.from({ length: 400 }, () => Array.from({ length: 1 + Math.floor(rng() * 8) }, () => (rng() < 0.3 ? " x " : piece())).join(""))

  it("finds what the alternation finds, at every position", () => {
    for (const text of texts) {
      const hits: Array<[number, number]> = []
      search.each(text, (start, end) => hits.push([start, end]))
      expect(hits.sort((a, b) => a[0] - b[0]), text).toEqual(plainHits(variants, text))
    }
  })

  it("finds the live-edge tail the loop over variants finds", () => {
    for (const text of texts) expect(search.liveTail(text), text).toBe(plainTail(variants, text))
  })

  it("finds nothing with nothing registered", () => {
    const none = makeExactSearch([])
    const hits: Array<number> = []
    none.each(texts.join(""), (s) => hits.push(s))
    expect(hits).toEqual([])
    expect(none.liveTail(texts[0]!)).toBe(0)
  })
})
