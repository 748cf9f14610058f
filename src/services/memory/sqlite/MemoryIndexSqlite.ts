/**
 * The memory's index on SQLite: the FTS5 table `memory_fts` (migration 0004), keyed by the note's
 * `seq` as its rowid, ranked by bm25 with the text weighted above the tags.
 */
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { ftsMatchOf } from "../ftsQuery.ts"
import type { MemoryIndex } from "../memoryIndexShape.ts"

export const memoryIndexSqlite = (sql: SqlClient.SqlClient): MemoryIndex => ({
  // SQLite's TEXT holds any string, NUL included.
  refuses: () => null,
  add: (seq, text, tags) => Effect.asVoid(sql`INSERT INTO memory_fts (rowid, text, tags) VALUES (${seq}, ${text}, ${tags})`),
  remove: (seq) => Effect.asVoid(sql`DELETE FROM memory_fts WHERE rowid = ${seq}`),
  // One connection writes at a time: the count and the insert of a transaction are never interleaved.
  lockClient: () => Effect.void,
  search: (cols, terms, namespaces, limit) => sql`
    SELECT ${cols}, bm25(memory_fts, 1.0, 0.5) AS rank
    FROM memory_fts JOIN memory_notes n ON n.seq = memory_fts.rowid
    WHERE memory_fts MATCH ${ftsMatchOf(terms)} AND ${sql.in("n.namespace", namespaces)}
    ORDER BY rank, n.seq DESC
    LIMIT ${limit}`
})
