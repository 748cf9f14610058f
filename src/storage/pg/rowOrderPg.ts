/**
 * PostgreSQL's insertion order of a table's rows: its `insert_seq` identity column (the migrations
 * give it to `runs` and `inbox`, the tables whose queries break ties by insertion). PostgreSQL has
 * no `rowid`, so a table without `insert_seq` has no insertion order: asking for one is a defect
 * named at the query, never a silently different order.
 */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"

/** The tables whose PostgreSQL form has `insert_seq` (migrations/pg/). */
const ORDERED_TABLES: ReadonlySet<string> = new Set(["runs", "inbox"])

export const insertSeqOrder = (sql: SqlClient.SqlClient, table?: string): Fragment => {
  if (table === undefined) return sql.literal("insert_seq")
  if (!ORDERED_TABLES.has(table)) {
    throw new Error(`table ${table} has no insert_seq column on PostgreSQL: no insertion order to break ties with (storage/pg/rowOrderPg.ts)`)
  }
  return sql.literal(`${table}.insert_seq`)
}
