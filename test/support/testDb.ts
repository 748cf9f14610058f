/**
 * The database a store test runs on: SQLite in memory (`DbMemory`) as always, or, in the
 * PostgreSQL project (`npm run test:pg`, `AGENT_BRIDGE_TEST_DIALECT=pg`), a fresh empty database on
 * the project's server (`pgGlobalSetup.ts`), migrated the way the daemon migrates it. The same test
 * file runs on both: it provides `TestDb` where it provided `DbMemory`.
 *
 * Each build of the layer is a database of its own, so tests never see each other's rows, as with
 * `:memory:`: a copy (`CREATE DATABASE ... TEMPLATE`) of the database `pgGlobalSetup.ts` migrated
 * once, which the migrator then finds up to date (migrating each one afresh cost 1.7 to 3.5 times
 * as much). The databases are not dropped: the server and its folder are removed after the run.
 */
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { DbLive, DbMemory, DbPostgres } from "../../src/storage/Db.ts"

export type TestDialect = "sqlite" | "pg"

/** The dialect of this test run. */
export const TEST_DIALECT: TestDialect = process.env["AGENT_BRIDGE_TEST_DIALECT"] === "pg" ? "pg" : "sqlite"

/** The pool and timeout a test database gets (small: two forks, many databases at once). */
const TEST_STORAGE = { pool_max: 4, statement_timeout_ms: 30_000 } as const

let admin: ManagedRuntime.ManagedRuntime<SqlClient.SqlClient, unknown> | undefined
let made = 0

/**
 * The server's base URL (vitest's `inject`). Imported when first needed, not at the top: this module
 * is imported by test support that scripts use outside vitest (golden:update), where importing
 * vitest throws.
 */
const pgBaseUrl = async (): Promise<string> => {
  const { inject } = await import("vitest")
  const base = inject("pgBaseUrl")
  if (base === undefined) throw new Error("no PostgreSQL server: run this file through test/vitest.pg.config.ts (npm run test:pg)")
  return base
}

/** The maintenance connection databases are created from: one per worker, opened at first use. */
const adminRuntime = async () => {
  if (admin === undefined) admin = ManagedRuntime.make(PgClient.layer({ url: Redacted.make(await pgBaseUrl()), maxConnections: 1 }))
  return admin
}

/**
 * A new database on the project's server, as a URL: a copy of `from` (template1 when absent:
 * empty).
 */
const createPgDatabase = async (from?: string): Promise<string> => {
  const runtime = await adminRuntime()
  const name = `t${process.pid}_${Date.now().toString(36)}_${++made}`
  const statement = from === undefined ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} TEMPLATE ${from}`
  await runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)))
  const base = new URL(await pgBaseUrl())
  base.pathname = `/${name}`
  return base.toString()
}

/** A fresh empty database on the project's server, as a URL (PostgreSQL runs only). */
export const freshPgDatabase = (): Promise<string> => createPgDatabase()

/** The database `pgGlobalSetup.ts` migrates once; the migrated test databases are copies of it. */
export const MIGRATED_TEMPLATE = "bridge_migrated"

/** A copy of the migrated template: the daemon's migrator, run on it, finds nothing to do. */
const migratedPgDatabase = (): Promise<string> => createPgDatabase(MIGRATED_TEMPLATE)

/** A migrated PostgreSQL database of its own for each build. */
export const TestPgDb = Layer.unwrapEffect(
  Effect.map(Effect.promise(migratedPgDatabase), (url) => DbPostgres({ url: Redacted.make(url), ...TEST_STORAGE }))
).pipe(Layer.orDie)

/** The test run's database: SQLite in memory, or a fresh PostgreSQL database in the pg project. */
export const TestDb: Layer.Layer<SqlClient.SqlClient> = TEST_DIALECT === "pg" ? TestPgDb : Layer.orDie(DbMemory)

const byDataDir = new Map<string, Promise<string>>()

/**
 * The PostgreSQL database of a daemon a test starts with `dataDir` (pg project only): one per data
 * dir, so a daemon started again on the same folder (a restart test) finds its rows again.
 */
export const pgDatabaseFor = (dataDir: string): Promise<string> => {
  let url = byDataDir.get(dataDir)
  if (url === undefined) {
    url = migratedPgDatabase()
    byDataDir.set(dataDir, url)
  }
  return url
}

/**
 * The database of the data dir `dataDir` for a test that opens it beside a daemon or the CLI:
 * the SQLite file there (`DbLive`), or in the pg project that dir's PostgreSQL database
 * (`pgDatabaseFor`, the one a daemon started on it uses).
 */
export const TestDbFor = (dataDir: string): Layer.Layer<SqlClient.SqlClient> =>
  TEST_DIALECT === "pg"
    ? Layer.unwrapEffect(
      Effect.map(Effect.promise(() => pgDatabaseFor(dataDir)), (url) => DbPostgres({ url: Redacted.make(url), ...TEST_STORAGE }))
    ).pipe(Layer.orDie)
    : Layer.orDie(DbLive(dataDir))
