/** The FTS5 memory store: bm25 ranking, prefix and phrase queries, and no way to inject FTS syntax. */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, FastCheck as fc, Layer, Option } from "effect"
import { ftsMatch, MAX_TERMS, parseTerms } from "../../src/services/memory/ftsQuery.ts"
import { MemoryStore } from "../../src/services/memory/MemoryStore.ts"
import { MemoryStoreTestOn } from "../../src/services/memory/MemoryStoreTest.ts"
import { MemoryStoreLive } from "../../src/services/memory/MemoryStoreLive.ts"
import { ClientQuotasFor } from "../../src/services/quotas/ClientQuotas.ts"
import { TEST_DIALECT, TestDb } from "../support/testDb.ts"

const layer = MemoryStoreTestOn(TestDb)
const add = (text: string, namespace = "shared", tags: ReadonlyArray<string> = []) =>
  Effect.flatMap(MemoryStore, (m) => m.add({ namespace, text, tags, client: "alice" }))
const search = (query: string, namespaces: ReadonlyArray<string> = ["shared"], limit = 10) =>
  Effect.flatMap(MemoryStore, (m) => m.search({ namespaces, query, limit }))
const texts = (hits: ReadonlyArray<{ readonly text: string }>) => hits.map((h) => h.text)

describe("FTS query building", () => {
  it("quotes every term and ORs them", () => {
    expect(ftsMatch("deploy staging")).toBe('"deploy" OR "staging"')
  })
  it("keeps phrases and prefixes", () => {
    expect(ftsMatch('"blue green" deplo*')).toBe('"blue green" OR "deplo" *')
  })
  it.each([
    ['a" OR b', /^"a" OR "OR" OR "b"$/],
    ["NEAR(a b)", /^"NEAR\(a" OR "b\)"$/],
    ["text:secret", /^"text:secret"$/],
    ["^start -minus +plus", /^"\^start" OR "-minus" OR "\+plus"$/]
  ])("operators in %j are plain text", (q, expected) => {
    expect(ftsMatch(q)).toMatch(expected)
  })
  it("control characters (a NUL would end SQLite's reading of the string) become spaces", () => {
    expect(ftsMatch("a\u0000b\u001bc")).toBe('"a b c"')
  })
  it("an unclosed quote runs to the end as a phrase", () => {
    expect(parseTerms('x "a b')).toEqual([
      { text: "x", phrase: false, prefix: false },
      { text: "a b", phrase: true, prefix: false }
    ])
  })
  it("terms without letters or digits are dropped; nothing left is null", () => {
    expect(ftsMatch('*** "" ( ) -')).toBeNull()
    expect(ftsMatch("ok ***")).toBe('"ok"')
  })
  it(`keeps at most ${MAX_TERMS} terms`, () => {
    expect(parseTerms(Array.from({ length: 40 }, (_, i) => `w${i}`).join(" "))).toHaveLength(MAX_TERMS)
  })
})

describe("MemoryStoreLive", () => {
  it.effect("stores a note with id, namespace, text, tags, client and created_at", () =>
    Effect.gen(function* () {
      const note = yield* add("the staging database lives on db2", "private:hermes", ["infra"])
      expect(note.id).toMatch(/^mem_[0-9a-f]{24}$/)
      expect(note.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      const got = yield* Effect.flatMap(MemoryStore, (m) => m.get(note.id))
      expect(Option.getOrThrow(got)).toEqual({
        id: note.id, namespace: "private:hermes", text: "the staging database lives on db2", tags: ["infra"], client: "alice", created_at: note.created_at
      })
    }).pipe(Effect.provide(layer)))

  it.effect("ranks by bm25: more and rarer matching terms first", () =>
    Effect.gen(function* () {
      yield* add("the deploy script")
      yield* add("deploy to staging: run the deploy script with --staging, then check staging health")
      yield* add("lunch menu for friday")
      const hits = yield* search("staging deploy")
      expect(texts(hits)[0]).toContain("deploy to staging")
      expect(texts(hits)).toHaveLength(2)
      expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score)
    }).pipe(Effect.provide(layer)))

  it.effect("a prefix query matches the word's start; without * it does not", () =>
    Effect.gen(function* () {
      yield* add("kubernetes upgrade notes")
      expect(texts(yield* search("kube*"))).toEqual(["kubernetes upgrade notes"])
      expect(texts(yield* search("kube"))).toEqual([])
    }).pipe(Effect.provide(layer)))

  it.effect("a phrase matches only the words in that order", () =>
    Effect.gen(function* () {
      yield* add("green blue")
      yield* add("blue green deployment")
      expect(texts(yield* search('"blue green"'))).toEqual(["blue green deployment"])
    }).pipe(Effect.provide(layer)))

  it.effect("case and accents fold; tags are searchable, the source tag is not", () =>
    Effect.gen(function* () {
      yield* add("Café opening hours", "shared", ["Runbook", "source:bridge:alice"])
      expect(texts(yield* search("cafe"))).toHaveLength(1)
      expect(texts(yield* search("runbook"))).toHaveLength(1)
      expect(texts(yield* search("alice"))).toEqual([])
    }).pipe(Effect.provide(layer)))

  it.effect("FTS syntax in user text is never interpreted", () =>
    Effect.gen(function* () {
      yield* add("alpha beta")
      yield* add("gamma OR delta")
      for (const q of ['alpha" OR "gamma', "NEAR(alpha beta)", "tags:alpha", "alpha NOT beta", "(alpha", '"unclosed', "alpha AND", "{text}: alpha", "alpha*beta", "^alpha"]) {
        const exit = yield* Effect.exit(search(q))
        expect(Exit.isSuccess(exit), q).toBe(true)
      }
      // "NOT beta" is two words here, so the note with beta still matches.
      expect(texts(yield* search("alpha NOT beta"))).toContain("alpha beta")
      // The word OR is text: it finds the note that holds it.
      expect(texts(yield* search("OR"))).toEqual(["gamma OR delta"])
    }).pipe(Effect.provide(layer)))

  it.effect("no generated query text reaches FTS as syntax: every search answers or is memory_invalid", () =>
    Effect.gen(function* () {
      yield* add("alpha beta gamma")
      const pieces = ['"', "'", "(", ")", "*", "^", ":", "-", "+", "{", "}", "[", "]", ",", " ", "NEAR", "AND", "OR", "NOT", "text", "tags", "alpha", "é", "\u0000", "\\"]
      const queries = fc.sample(fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 12 }).map((xs) => xs.join("")), { numRuns: 400, seed: 7 })
      for (const q of queries) {
        const exit = yield* Effect.exit(search(q))
        const ok = Exit.isSuccess(exit) || (Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error._tag === "MemoryInvalid")
        expect(ok, JSON.stringify(q)).toBe(true)
      }
    }).pipe(Effect.provide(layer)))

  it.effect("a query with no searchable words is bridge.memory_invalid", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(search("*** ()"))
      expect(e._tag).toBe("MemoryInvalid")
    }).pipe(Effect.provide(layer)))

  it.effect("search and list read only the namespaces asked for; limit holds", () =>
    Effect.gen(function* () {
      yield* add("note one", "private:a")
      yield* add("note two", "private:b")
      yield* add("note three", "shared")
      expect(texts(yield* search("note", ["private:a", "shared"])).sort()).toEqual(["note one", "note three"])
      expect(yield* search("note", [])).toEqual([])
      expect(texts(yield* search("note", ["private:a", "private:b", "shared"], 2))).toHaveLength(2)
      const m = yield* MemoryStore
      expect(texts(yield* m.list({ namespaces: ["private:b", "shared"], limit: 10, offset: 0 }))).toEqual(["note three", "note two"])
      expect(texts(yield* m.list({ namespaces: ["private:b", "shared"], limit: 1, offset: 1 }))).toEqual(["note two"])
    }).pipe(Effect.provide(layer)))

  it.effect("a note holding control characters is stored whole and found (NUL: SQLite only)", () =>
    Effect.gen(function* () {
      // PostgreSQL's text cannot hold U+0000: there the note is memory_invalid, never altered.
      const text = TEST_DIALECT === "pg" ? "before\u0001after tab\there" : "before\u0000after tab\there"
      const n = yield* add(text)
      expect(texts(yield* search("after"))).toEqual([text])
      expect(Option.getOrThrow(yield* Effect.flatMap(MemoryStore, (m) => m.get(n.id))).text).toBe(text)
    }).pipe(Effect.provide(layer)))

  it.effect.skipIf(TEST_DIALECT !== "pg")("on PostgreSQL a note holding NUL is bridge.memory_invalid and nothing is stored", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(add("before\u0000after"))
      expect(e._tag).toBe("MemoryInvalid")
      expect(e.message).toMatch(/NUL/)
      expect(yield* Effect.flatMap(MemoryStore, (m) => m.list({ namespaces: ["shared"], limit: 10, offset: 0 }))).toEqual([])
    }).pipe(Effect.provide(layer)))

  it.effect("a phrase does not run from the text into the tags; equal ranks come newest first", () =>
    Effect.gen(function* () {
      yield* add("blue", "shared", ["green"])
      expect(yield* search('"blue green"')).toEqual([])
      const a = yield* add("same words here")
      const b = yield* add("same words here")
      expect((yield* search("words")).map((h) => h.id)).toEqual([b.id, a.id])
    }).pipe(Effect.provide(layer)))

  it.effect("remove deletes the note and its index entry", () =>
    Effect.gen(function* () {
      const m = yield* MemoryStore
      const n = yield* add("ephemeral fact")
      expect(yield* m.remove(n.id)).toBe(true)
      expect(yield* m.remove(n.id)).toBe(false)
      expect(yield* search("ephemeral")).toEqual([])
      expect(Option.isNone(yield* m.get(n.id))).toBe(true)
    }).pipe(Effect.provide(layer)))

  it.effect("a broken store is bridge.memory_failed, with no SQL detail in the message", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // The index is gone: FTS5's table on SQLite, the search column on PostgreSQL.
      yield* (TEST_DIALECT === "pg" ? sql`ALTER TABLE memory_notes DROP COLUMN search` : sql`DROP TABLE memory_fts`)
      const e = yield* Effect.flip(add("x"))
      expect(e._tag).toBe("MemoryFailed")
      expect(e.message).not.toMatch(/memory_fts|search|SQLITE|column/i)
      const s = yield* Effect.flip(search("x"))
      expect(s._tag).toBe("MemoryFailed")
    }).pipe(Effect.provide(layer)))

  it.effect("concurrent adds of one client at its quota: exactly the quota is written, the rest refused; another client is not held back", () =>
    Effect.gen(function* () {
      const m = yield* MemoryStore
      const sql = yield* SqlClient.SqlClient
      const adds = yield* Effect.forEach(
        Array.from({ length: 12 }, (_, i) => i),
        (i) => Effect.either(m.add({ namespace: "private:hermes", text: `racing ${i}`, tags: [], client: "racer" })),
        { concurrency: "unbounded" }
      )
      expect(adds.filter((a) => a._tag === "Right")).toHaveLength(3)
      const refused = adds.flatMap((a) => (a._tag === "Left" ? [a.left] : []))
      expect(refused.map((e) => e._tag)).toEqual(Array(9).fill("QuotaExceeded"))
      expect(refused[0]!.message).toContain("limits.memory_notes_per_client")
      const [row] = yield* sql<{ n: number | string }>`SELECT count(*) AS n FROM memory_notes WHERE client = 'racer'`
      expect(Number(row!.n)).toBe(3)
      // Refused notes left nothing in the index either.
      expect((yield* search("racing", ["private:hermes"])).length).toBe(3)
      expect((yield* Effect.either(m.add({ namespace: "shared", text: "mine", tags: [], client: "other" })))._tag).toBe("Right")
    }).pipe(Effect.provide(MemoryStoreLive.pipe(Layer.provide(ClientQuotasFor({ memory_notes_per_client: 3 })), Layer.provideMerge(TestDb)))))
})
