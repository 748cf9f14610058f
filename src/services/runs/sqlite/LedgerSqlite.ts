/**
 * What the ledger says differently on SQLite: how a unique-key violation looks (better-sqlite3's
 * `SQLITE_CONSTRAINT_UNIQUE`), the insertion order that breaks ties between runs created in the
 * same millisecond (the table's `rowid`), and the stored output's text read back as its UTF-8
 * bytes; a run read for a write needs no row lock. Everything else the ledger writes is SQL both dialects accept (`../LedgerSql.ts`).
 */
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { rowidOrder } from "../../../storage/sqlite/rowOrderSqlite.ts"
import { Effect } from "effect"
import type { LedgerDialect } from "../ledgerDialectShape.ts"

export const ledgerSqlite = (sql: SqlClient.SqlClient): LedgerDialect => ({
  isUniqueViolation: (e: SqlError) => (e.cause as { code?: unknown } | undefined)?.code === "SQLITE_CONSTRAINT_UNIQUE",
  insertionOrder: (table) => rowidOrder(sql, table),
  textAsBytes: (column) => sql.literal(`CAST(${column} AS BLOB)`),
  // One connection, and a write transaction holds the database's write lock: writers already take turns.
  lockForWrite: sql.literal(""),
  // The insert's transaction holds the write lock of the one connection: inserts take turns already.
  lockClient: () => Effect.void,
  // Likewise for a queue claim: one writer at a time.
  lockProfile: () => Effect.void
})
