/**
 * SQLite's own account of its file, read through its pragmas: whether the database may still grow
 * (its page limit, `max_page_count`, with no free page left) and how large it is, for `/healthz`
 * and `/metrics` (`../probe.ts` picks these on SQLite).
 */
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Schema } from "effect"
import type { ParseError } from "effect/ParseResult"

/** One pragma's single integer (`PRAGMA page_count` answers `[{ page_count: n }]`). */
const pragmaInt = (sql: SqlClient.SqlClient, pragma: "page_count" | "max_page_count" | "freelist_count") =>
  sql.unsafe(`PRAGMA ${pragma}`).pipe(
    Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Int })))),
    Effect.map((rows) => rows[0]?.[pragma])
  )

/** True when the database is at its page limit with no free page left. */
export const databaseFullSqlite = (sql: SqlClient.SqlClient): Effect.Effect<boolean, SqlError | ParseError> =>
  Effect.gen(function* () {
    const pages = (yield* pragmaInt(sql, "page_count")) ?? 0
    const max = (yield* pragmaInt(sql, "max_page_count")) ?? Infinity
    const free = (yield* pragmaInt(sql, "freelist_count")) ?? 0
    return pages >= max && free === 0
  })

/** The database file's size in bytes (pages × page size). */
export const databaseBytesSqlite = (sql: SqlClient.SqlClient): Effect.Effect<number, SqlError | ParseError> =>
  sql`SELECT page_count * page_size AS bytes FROM pragma_page_count(), pragma_page_size()`.pipe(
    Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ bytes: Schema.Number })))),
    Effect.map((rows) => rows[0]?.bytes ?? 0)
  )
