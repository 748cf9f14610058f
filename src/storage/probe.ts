/**
 * A cheap check that the bridge can still write where it must: the database has room to grow (on
 * SQLite its page limit, `sqlite/probeSqlite.ts`), and the data and skills folders are
 * writable and their disks not full (one `access` and one `statfs` each; nothing is written). `/healthz`
 * reports it, so a full or read-only disk shows before the next write fails.
 */
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { type Duration, Effect, Schema } from "effect"
import type { ParseError } from "effect/ParseResult"
import * as fs from "node:fs/promises"
import { storageFaultOf } from "./faults.ts"
import { databaseBytesSqlite, databaseFullSqlite } from "./sqlite/probeSqlite.ts"

export type StorageState = "ok" | "full" | "read_only" | "unavailable"

export interface StorageProblem {
  readonly path: string
  readonly state: Exclude<StorageState, "ok">
}

/**
 * `full` when the database cannot grow: SQLite at its page limit with no free page left. A
 * database server grows until its own disk is full, which it reports on the failed write itself.
 */
export const databaseRoom = (sql: SqlClient.SqlClient): Effect.Effect<StorageState> =>
  Effect.catchAll(
    sql.onDialectOrElse({
      sqlite: () => Effect.map(databaseFullSqlite(sql), (full): StorageState => (full ? "full" : "ok")),
      orElse: () => Effect.succeed<StorageState>("ok")
    }),
    () => Effect.succeed<StorageState>("unavailable")
  )

/**
 * Whether the database answers a `SELECT 1` within `within`: false for a PostgreSQL server that is
 * down or restarting (a pool would otherwise wait its whole connect timeout), and for any failure.
 */
export const databaseAnswers = (sql: SqlClient.SqlClient, within: Duration.DurationInput): Effect.Effect<boolean> =>
  sql`SELECT 1 AS ok`.pipe(
    Effect.timeoutFail({ duration: within, onTimeout: () => "no answer" }),
    Effect.as(true),
    Effect.catchAll(() => Effect.succeed(false))
  )

/** The database's size in bytes (`/metrics`). */
export const databaseBytes = (sql: SqlClient.SqlClient): Effect.Effect<number, SqlError | ParseError> =>
  sql.onDialectOrElse({
    sqlite: () => databaseBytesSqlite(sql),
    pg: () =>
      sql`SELECT pg_database_size(current_database()) AS bytes`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ bytes: Schema.Number })))),
        Effect.map((rows) => rows[0]?.bytes ?? 0)
      ),
    orElse: () => Effect.succeed(0)
  })

/**
 * One folder: writable and with room, or what is wrong. A folder not made yet is fine (it is made when needed).
 * node:fs, not Effect's FileSystem: FileSystem has no `statfs`, the one call that tells a full disk.
 */
export const folderState = (dir: string): Effect.Effect<StorageState> =>
  Effect.promise(async (): Promise<StorageState> => {
    try {
      await fs.access(dir, fs.constants.W_OK)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return "ok"
      const fault = storageFaultOf(e)
      return fault?.kind === "readonly" ? "read_only" : "unavailable"
    }
    const stats = await fs.statfs(dir).catch(() => null)
    return stats !== null && stats.bavail === 0 ? "full" : "ok"
  })

/** Every place that cannot be written now; empty when all can. */
export const storageProblems = (sql: SqlClient.SqlClient, database: string, folders: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const problems: Array<StorageProblem> = []
    const db = yield* databaseRoom(sql)
    if (db !== "ok") problems.push({ path: database, state: db })
    for (const dir of folders) {
      const state = yield* folderState(dir)
      if (state !== "ok") problems.push({ path: dir, state })
    }
    return problems
  })
