/**
 * PostgreSQL's insertion order of a table's rows: its `insert_seq` identity column (migrations
 * 0002 and 0003 give one to `runs` and `inbox`, the tables whose ties are broken by it), since
 * PostgreSQL rows have no stable row number.
 */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"

export const insertSeqOrder = (sql: SqlClient.SqlClient, table?: string): Fragment =>
  sql.literal(table === undefined ? "insert_seq" : `${table}.insert_seq`)
