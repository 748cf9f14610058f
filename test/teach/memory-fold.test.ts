/**
 * The JS tokenizer the PostgreSQL memory index is built from (`ftsFold.ts`) against SQLite's own
 * `unicode61 remove_diacritics 2` (read back through `fts5vocab`), on named cases and on random
 * text over the scripts notes are written in; and the vector and query texts made from it.
 */
import Database from "better-sqlite3"
import { FastCheck as fc } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { ftsTokens } from "../../src/services/memory/ftsFold.ts"
import { parseTerms } from "../../src/services/memory/ftsQuery.ts"
import { noteVector, termsQuery } from "../../src/services/memory/pg/MemoryIndexPg.ts"

const db = new Database(":memory:")
db.exec(`CREATE VIRTUAL TABLE f USING fts5(t, tokenize = 'unicode61 remove_diacritics 2');
  CREATE VIRTUAL TABLE v USING fts5vocab(f, 'instance');`)
afterAll(() => db.close())

const sqliteTokens = (text: string): ReadonlyArray<string> => {
  db.prepare("DELETE FROM f").run()
  db.prepare("INSERT INTO f (t) VALUES (?)").run(text)
  return (db.prepare("SELECT term FROM v ORDER BY offset").all() as Array<{ term: string }>).map((r) => r.term)
}

describe("ftsTokens cuts and folds as SQLite's unicode61 remove_diacritics 2", () => {
  it.each([
    "Café opening hours", "cafe\u0301x", "øØ ß ẞ İ ı", "Ωμέγα ΆΈ ϐ ς Σ", "Йод ё", "日本語テキスト", "a😀b",
    "１２３ ＡＢ", "ǅ ǆ Ǆ", "ﬁne ĳ Œ æ", "a_b a-b a.b a'b text:secret", "Ⅻ ② ½", "\u0300a x \u0301 y",
    "ǖ ḯ ẵ Å ẛ K", "𐐀 𐐨", "ﾊﾟ ぱ", "हिन्दी", "before\u0000after tab\there", "deplo* \"blue green\""
  ])("%j", (text) => {
    expect(ftsTokens(text)).toEqual(sqliteTokens(text))
  })

  it("on random text of Latin, Greek, Cyrillic, CJK, digits, accents and punctuation", () => {
    const alphabet = [..."aZé ÉàçÑöüßøłŁğİ.,;:-_'\"*()!?/\\ 09٣ αΩέΐσς яЁй 中文かナ\u0301\u0308\t\n"]
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 40 }).map((cs) => cs.join("")), (text) => {
        expect(ftsTokens(text)).toEqual(sqliteTokens(text))
      }),
      { numRuns: 500, seed: 24 }
    )
  })
})

describe("the PostgreSQL vector and query texts", () => {
  it("text at weight A, tags at B after a gap, so no phrase runs from text into tags", () => {
    expect(noteVector("Blue blue Green", "ops")).toBe("'blue':1A,2A 'green':3A 'ops':5B")
  })
  it("terms OR-ed, phrases as <->, a prefix's last word :*, all quoted", () => {
    expect(termsQuery(parseTerms('"blue green" deplo* text:secret'))).toBe("('blue' <-> 'green') | ('deplo':*) | ('text' <-> 'secret')")
  })
  it("operators and quotes in user text are only text", () => {
    expect(termsQuery(parseTerms("a' | !b & c: <-> ('d')"))).toBe("('a') | ('b') | ('c') | ('d')")
  })
  it("a word PostgreSQL could not hold (over 2047 bytes) is left out; nothing left is null", () => {
    const long = "x".repeat(3000)
    expect(noteVector(`${long} ok`, "")).toBe("'ok':1A")
    expect(termsQuery(parseTerms(long))).toBeNull()
  })
})
