/**
 * The memory's full-text index, the one part of the note store that differs by dialect: each
 * dialect's driver in its own folder (SQLite's FTS5 with bm25 in `sqlite/MemoryIndexSqlite.ts`,
 * PostgreSQL's tsvector with ts_rank in `pg/MemoryIndexPg.ts`),
 * picked for the `SqlClient` the store runs on. The notes themselves (`memory_notes`) are portable
 * SQL in `MemoryStoreLive.ts`; the query rules (terms, phrases, prefixes) are `ftsQuery.ts`'s, once.
 */
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { memoryIndexPg } from "./pg/MemoryIndexPg.ts"
import type { MemoryIndex } from "./memoryIndexShape.ts"
import { memoryIndexSqlite } from "./sqlite/MemoryIndexSqlite.ts"

export const memoryIndex = (sql: SqlClient.SqlClient): Effect.Effect<MemoryIndex> =>
  sql.onDialectOrElse({
    sqlite: () => Effect.succeed(memoryIndexSqlite(sql)),
    pg: () => Effect.succeed(memoryIndexPg(sql)),
    orElse: () => Effect.dieMessage("the memory store has no full-text index for this database's dialect yet (memory/memoryIndex.ts)")
  })
