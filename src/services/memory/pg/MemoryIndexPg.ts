/**
 * The memory's index on PostgreSQL: the note's `search` tsvector (migration 0004, GIN-indexed),
 * written in the note's transaction, matched with `@@` and ranked by `ts_rank` with the text
 * weighted above the tags (A 1.0, B 0.5, as SQLite's bm25 weighs 1.0 and 0.5).
 *
 * `ts_rank`, not `ts_rank_cd`: every match is ranked before the limit, and the cover-density rank
 * costs several times more per row on an OR of words (EXPLAIN ANALYZE over the bench's 5,000 notes,
 * 2,165 matching `deploy | budget`: 8 to 14 ms against 1.8 ms; docs/PERFORMANCE.md). Both count a
 * word's occurrences and weights, neither how rare it is (bm25 does), and the memory tests' orders
 * are the same on either; `ts_rank` also credits a phrase's words standing apart in a note that
 * matched through another term (docs/REFERENCE.md).
 *
 * Both sides are built here from `ftsFold.ts`'s tokens, so a note and a query are cut and folded
 * exactly as SQLite's `unicode61 remove_diacritics 2` does, not as PostgreSQL's parser would: the
 * vector as `tsvector` input text (`'word':1A`), the query as `tsquery` input text, each sent as a
 * parameter and cast, so user text never becomes SQL; a lexeme is only ever letters and digits,
 * quoted all the same. (`to_tsvector('simple', …)` would run the tokens through PostgreSQL's parser
 * again; tsvector input takes them as they are.)
 */
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { ftsTokens } from "../ftsFold.ts"
import type { FtsTerm } from "../ftsQuery.ts"
import type { MemoryIndex } from "../memoryIndexShape.ts"

/** PostgreSQL's limits: a lexeme's bytes, and the last position a tsvector records. */
const MAX_LEXEME_BYTES = 2047
const MAX_POSITION = 16383

const lexemes = (text: string): ReadonlyArray<string> =>
  ftsTokens(text).filter((t) => Buffer.byteLength(t, "utf8") <= MAX_LEXEME_BYTES)

const quote = (lexeme: string): string => `'${lexeme.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`

/**
 * The `tsvector` input text for a note: the text's words at positions 1…n (weight A), the tags'
 * after a gap of one (weight B), so that no phrase runs from the text into the tags (SQLite keeps
 * them in two columns). Positions past PostgreSQL's last one stay at it.
 */
export const noteVector = (text: string, tags: string): string => {
  const at = new Map<string, Array<string>>()
  const put = (words: ReadonlyArray<string>, from: number, weight: "A" | "B") =>
    words.forEach((w, i) => {
      const list = at.get(w) ?? []
      list.push(`${Math.min(from + i, MAX_POSITION)}${weight}`)
      at.set(w, list)
    })
  const textWords = lexemes(text)
  put(textWords, 1, "A")
  put(lexemes(tags), textWords.length + 2, "B")
  return [...at].map(([w, positions]) => `${quote(w)}:${positions.join(",")}`).join(" ")
}

/**
 * The `tsquery` input text for the parsed terms: each term a phrase of its words (`<->`; SQLite
 * reads every quoted term as a phrase of its tokens), a prefix term's last word `:*`, the terms
 * OR-ed. Null when no term keeps a word (nothing can match).
 */
export const termsQuery = (terms: ReadonlyArray<FtsTerm>): string | null => {
  const parts = terms.flatMap((t) => {
    const words = lexemes(t.text).map(quote)
    if (words.length === 0) return []
    if (t.prefix) words[words.length - 1] = `${words[words.length - 1]}:*`
    return [`(${words.join(" <-> ")})`]
  })
  return parts.length === 0 ? null : parts.join(" | ")
}

/** The first key of the memory's per-client advisory lock (the second is the client's hash). */
const MEMORY_CLIENT_LOCK = 0x6d656d31

export const memoryIndexPg = (sql: SqlClient.SqlClient): MemoryIndex => ({
  // PostgreSQL's text type cannot hold U+0000 (SQLite's can): the note is refused, not altered.
  refuses: (text) => (text.includes("\u0000") ? "the note holds the NUL character (U+0000), which this bridge's PostgreSQL store cannot hold; remove it" : null),
  add: (seq, text, tags) =>
    Effect.asVoid(sql`UPDATE memory_notes SET search = CAST(${noteVector(text, tags)} AS tsvector) WHERE seq = ${seq}`),
  // The vector lives in the note's row: deleting the note removed it.
  remove: () => Effect.void,
  // A transaction-scoped advisory lock per client (its own class, apart from the ledger's).
  lockClient: (client) => Effect.asVoid(sql`SELECT pg_advisory_xact_lock(${MEMORY_CLIENT_LOCK}, hashtext(${client}))`),
  search: (cols, terms, namespaces, limit) => {
    const query = termsQuery(terms)
    if (query === null) return Effect.succeed([])
    // ts_rank's weights are {D, C, B, A}; the rank is negated to be lower-is-better like bm25's.
    return sql`
      SELECT ${cols}, -ts_rank(CAST('{0.1, 0.2, 0.5, 1.0}' AS float4[]), n.search, CAST(${query} AS tsquery)) AS rank
      FROM memory_notes n
      WHERE n.search @@ CAST(${query} AS tsquery) AND ${sql.in("n.namespace", namespaces)}
      ORDER BY rank, n.seq DESC
      LIMIT ${limit}`
  }
})
