/**
 * The one SQLite database (WAL) in the data directory, with versioned migrations. The data dir is
 * created 0700 and the database file 0600 before SQLite opens it: the ledger holds raw output.
 */
import { NodeContext } from "@effect/platform-node"
import { SqliteClient, SqliteMigrator } from "@effect/sql-sqlite-node"
import { Data, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { migrations } from "./migrations/index.ts"

export const DB_FILE = "bridge.db"

/** The data directory could not be made ready (a read-only or full disk, a file in its place). */
export class DataDirError extends Data.TaggedError("DataDirError")<{ readonly dataDir: string; readonly cause: unknown }> {
  override get message() {
    const reason = this.cause instanceof Error ? this.cause.message : String(this.cause)
    return `cannot prepare the data directory ${this.dataDir}: ${reason}`
  }
}

/** Creates the data dir (0700) and an empty database file (0600) if they are missing; tightens modes. */
export const prepareDataDir = (dataDir: string) =>
  Effect.try({
    try: () => {
      fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 })
      fs.chmodSync(dataDir, 0o700)
      const file = path.join(dataDir, DB_FILE)
      if (!fs.existsSync(file)) fs.closeSync(fs.openSync(file, "a", 0o600))
      fs.chmodSync(file, 0o600)
      return file
    },
    catch: (cause) => new DataDirError({ dataDir, cause })
  })

const MigratorLive = SqliteMigrator.layer({ loader: SqliteMigrator.fromRecord(migrations) }).pipe(
  Layer.provide(NodeContext.layer)
)

/** SqlClient over `<dataDir>/bridge.db`, migrated. */
export const DbLive = (dataDir: string) =>
  MigratorLive.pipe(
    Layer.provideMerge(
      Layer.unwrapEffect(
        prepareDataDir(dataDir).pipe(Effect.map((filename) => SqliteClient.layer({ filename })))
      )
    )
  )

/** An in-memory database with the same migrations (tests). */
export const DbMemory = MigratorLive.pipe(Layer.provideMerge(SqliteClient.layer({ filename: ":memory:" })))
