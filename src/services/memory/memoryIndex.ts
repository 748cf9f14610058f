/**
 * The memory's full-text index, the one part of the note store that differs by dialect: each
 * dialect's driver in its own folder (SQLite's FTS5 with bm25 in `sqlite/MemoryIndexSqlite.ts`,
 * PostgreSQL's tsvector with ts_rank in `pg/MemoryIndexPg.ts`),
 * picked for the `SqlClient` the store runs on. The notes themselves (`memory_notes`) are portable
 * SQL in `MemoryStoreLive.ts`; the query rules (terms, phrases, prefixes) are `ftsQuery.ts`'s, once.
 */
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import { Effect } from "effect"
import type { FtsTerm } from "./ftsQuery.ts"
import { memoryIndexPg } from "./pg/MemoryIndexPg.ts"
import { memoryIndexSqlite } from "./sqlite/MemoryIndexSqlite.ts"

export interface MemoryIndex {
  /** Why this database cannot hold a note's text as it stands, or null when it can. */
  readonly refuses: (text: string) => string | null
  /** Indexes the note stored as `seq` (its text, and the tags the index holds). */
  readonly add: (seq: number | null, text: string, tags: string) => Effect.Effect<void, SqlError>
  readonly remove: (seq: number) => Effect.Effect<void, SqlError>
  /**
   * Inside a note's insert transaction: holds `client`'s notes against its other inserts until the
   * commit, so that two adds (on two replicas) count the client's notes against its quota in turn.
   */
  readonly lockClient: (client: string) => Effect.Effect<void, SqlError>
  /**
   * The notes of `namespaces` that match any of `terms` (`parseTerms`'s, at least one), best
   * first (ties newest first), at most `limit`: rows of `cols` (over `memory_notes n`) and `rank`,
   * lower is better.
   */
  readonly search: (cols: Fragment, terms: ReadonlyArray<FtsTerm>, namespaces: ReadonlyArray<string>, limit: number) => Effect.Effect<ReadonlyArray<unknown>, SqlError>
}

export const memoryIndex = (sql: SqlClient.SqlClient): Effect.Effect<MemoryIndex> =>
  sql.onDialectOrElse({
    sqlite: () => Effect.succeed(memoryIndexSqlite(sql)),
    pg: () => Effect.succeed(memoryIndexPg(sql)),
    orElse: () => Effect.dieMessage("the memory store has no full-text index for this database's dialect yet (memory/memoryIndex.ts)")
  })
