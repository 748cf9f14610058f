/**
 * What the ledger says differently on PostgreSQL: a unique-key violation is SQLSTATE 23505
 * (node-postgres puts it on the error's `code`), the insertion order that breaks ties between runs
 * created in the same millisecond is the `insert_seq` identity column (PostgreSQL has no rowid),
 * and the stored output's text is read back as its UTF-8 bytes with `convert_to`; a run read for a write is locked (`FOR UPDATE`).
 */
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { insertSeqOrder } from "../../../storage/pg/rowOrderPg.ts"
import type { LedgerDialect } from "../ledgerDialect.ts"

/** PostgreSQL's `unique_violation`. */
const UNIQUE_VIOLATION = "23505"

export const ledgerPg = (sql: SqlClient.SqlClient): LedgerDialect => ({
  isUniqueViolation: (e: SqlError) => (e.cause as { code?: unknown } | undefined)?.code === UNIQUE_VIOLATION,
  insertionOrder: (table) => insertSeqOrder(sql, table),
  textAsBytes: (column) => sql.literal(`convert_to(${column}, 'UTF8')`),
  // The pool runs transactions side by side: the run's row is locked until the writer commits, so a
  // second writer reads the seq the first one left (READ COMMITTED re-reads the row after the wait).
  lockForWrite: sql.literal("FOR UPDATE")
})
