/**
 * The PostgreSQL side of `storage copy`: the target's tables and columns (from its catalog, after
 * the migrations ran), batched inserts, identity sequences moved past the copied values, and the
 * rows read back in key order for the digest (text keys in the C collation, the byte order SQLite's
 * BINARY collation sorts in, whatever the database's default collation is).
 */
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import type { CopyTable } from "../copy/plan.ts"

/** Every base table of the public schema but the migrator's, with its columns in order. */
export const pgTables = (sql: SqlClient.SqlClient): Effect.Effect<ReadonlyMap<string, ReadonlyArray<{ name: string; type: string }>>, SqlError> =>
  Effect.map(
    sql<{ table_name: string; column_name: string; data_type: string }>`
      SELECT c.table_name, c.column_name, c.data_type
      FROM information_schema.columns c JOIN information_schema.tables t
        ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.table_name <> 'effect_sql_migrations'
      ORDER BY c.table_name, c.ordinal_position`,
    (rows) => {
      const out = new Map<string, Array<{ name: string; type: string }>>()
      for (const r of rows) out.set(r.table_name, [...(out.get(r.table_name) ?? []), { name: r.column_name, type: r.data_type }])
      return out
    }
  )

export const countPg = (sql: SqlClient.SqlClient, table: string) => sql<{ n: number }>`SELECT COUNT(*)::int AS n FROM ${sql(table)}`

export const insertPg = (sql: SqlClient.SqlClient, table: string, rows: ReadonlyArray<Record<string, unknown>>) =>
  Effect.asVoid(sql`INSERT INTO ${sql(table)} ${sql.insert(rows as Array<Record<string, unknown>>)}`)

/** Moves the identity's sequence past the largest copied value, so the next insert does not collide. */
export const movePastPg = (sql: SqlClient.SqlClient, table: string, column: string) =>
  Effect.asVoid(sql`SELECT setval(pg_get_serial_sequence(${table}, ${column}),
    (SELECT COALESCE(MAX(${sql(column)}), 0) + 1 FROM ${sql(table)}), false)`)

export const readPgBatch = (
  sql: SqlClient.SqlClient,
  table: CopyTable,
  columns: ReadonlyArray<{ name: string; type: string }>,
  offset: number,
  limit: number
): Effect.Effect<ReadonlyArray<Record<string, unknown>>, SqlError> => {
  const keyOrder = table.key.map((k) =>
    columns.find((c) => c.name === k)?.type === "text" ? sql`${sql(k)} COLLATE "C"` : sql`${sql(k)}`
  )
  return sql`SELECT ${sql.join(", ", false)(columns.map((c) => sql`${sql(c.name)}`))} FROM ${sql(table.name)}
    ORDER BY ${sql.join(", ", false)(keyOrder)} LIMIT ${limit} OFFSET ${offset}`
}
