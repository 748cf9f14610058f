/** The SQLite side of `storage copy`: a table's rows in key order, a batch at a time, rowid as asked. */
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import type { Effect } from "effect"
import type { CopyTable } from "../copy/plan.ts"

export const readSqliteBatch = (
  sql: SqlClient.SqlClient,
  table: CopyTable,
  columns: ReadonlyArray<string>,
  offset: number,
  limit: number
): Effect.Effect<ReadonlyArray<Record<string, unknown>>, SqlError> => {
  const cols = columns.map((c) => (c === table.fromRowid ? sql`rowid AS ${sql(c)}` : sql`${sql(c)}`))
  return sql`SELECT ${sql.join(", ", false)(cols)} FROM ${sql(table.name)} ORDER BY ${sql.join(", ", false)(table.key.map((k) => sql`${sql(k)}`))}
    LIMIT ${limit} OFFSET ${offset}`
}

export const countSqlite = (sql: SqlClient.SqlClient, table: string) => sql<{ n: number }>`SELECT COUNT(*) AS n FROM ${sql(table)}`
