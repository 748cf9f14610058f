/**
 * A cheap check that the bridge can still write where it must: the database has room to grow (its
 * page limit, as SQLite's own `max_page_count` sets it), and the data and skills folders are
 * writable and their disks not full (one `access` and one `statfs` each; nothing is written). `/healthz`
 * reports it, so a full or read-only disk shows before the next write fails.
 */
import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import * as fs from "node:fs/promises"
import { storageFaultOf } from "./faults.ts"

export type StorageState = "ok" | "full" | "read_only" | "unavailable"

export interface StorageProblem {
  readonly path: string
  readonly state: Exclude<StorageState, "ok">
}

/** `full` when the database is at its page limit with no free page left. */
export const databaseRoom = (sql: SqlClient.SqlClient): Effect.Effect<StorageState> =>
  Effect.gen(function* () {
    const pages = yield* Effect.flatMap(sql`PRAGMA page_count`, Schema.decodeUnknown(Schema.Array(Schema.Struct({ page_count: Schema.Int }))))
    const max = yield* Effect.flatMap(sql`PRAGMA max_page_count`, Schema.decodeUnknown(Schema.Array(Schema.Struct({ max_page_count: Schema.Int }))))
    const free = yield* Effect.flatMap(sql`PRAGMA freelist_count`, Schema.decodeUnknown(Schema.Array(Schema.Struct({ freelist_count: Schema.Int }))))
    const [p, m, f] = [pages[0]?.page_count ?? 0, max[0]?.max_page_count ?? Infinity, free[0]?.freelist_count ?? 0]
    return p >= m && f === 0 ? ("full" as const) : ("ok" as const)
  }).pipe(Effect.catchAll(() => Effect.succeed("unavailable" as const)))

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
