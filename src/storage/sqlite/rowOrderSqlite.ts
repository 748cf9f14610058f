/** SQLite's insertion order of a table's rows: its `rowid` (every table here has one). */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"

export const rowidOrder = (sql: SqlClient.SqlClient, table?: string): Fragment => sql.literal(table === undefined ? "rowid" : `${table}.rowid`)
