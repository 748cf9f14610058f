/**
 * The PostgreSQL project's one server (vitest globalSetup of `test/vitest.pg.config.ts`): a
 * throwaway cluster (`postgres.ts`) started before any file runs and stopped after the last, its
 * base URL handed to the workers as `pgBaseUrl` (vitest's provide/inject). Each test database is
 * made on it by `testDb.ts`. A server that cannot start fails the whole run: this project exists to
 * run the suites on PostgreSQL, so skipping it would pass without testing anything.
 *
 * It also migrates one database the way the daemon does, `MIGRATED_TEMPLATE`, which the migrated
 * test databases are copied from (`CREATE DATABASE ... TEMPLATE`): migrating each of the project's
 * databases afresh cost 1.7 to 3.5 times a copy whose migrator finds nothing to do (1.4 to 2.0 s
 * against 0.6 to 0.8 s per database at load average 30, `scripts/bench-pg-template.ts`). A migration
 * that fails on PostgreSQL fails here, before any file runs. The template takes no connections
 * after that (a copy needs its source unused).
 */
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import type { TestProject } from "vitest/node"
import { DbPostgres } from "../../src/storage/Db.ts"
import { startPostgres } from "./pgServer.ts"
import { MIGRATED_TEMPLATE } from "./testDb.ts"

declare module "vitest" {
  export interface ProvidedContext {
    /** `postgres://bridge_test@127.0.0.1:<port>/postgres`: the server's maintenance database. */
    pgBaseUrl: string
  }
}

const onDatabase = async (url: string, statement: string) => {
  const admin = ManagedRuntime.make(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 }))
  try {
    await admin.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)))
  } finally {
    await admin.dispose()
  }
}

/** Creates and migrates `name` on the server of `url` (a maintenance URL), then closes it to connections. */
export const makeMigratedTemplate = async (url: (database: string) => string, name: string): Promise<void> => {
  await onDatabase(url("postgres"), `CREATE DATABASE ${name}`)
  const migrated = ManagedRuntime.make(DbPostgres({ url: Redacted.make(url(name)), pool_max: 4, statement_timeout_ms: 60_000 }).pipe(Layer.orDie))
  try {
    await migrated.runPromise(Effect.asVoid(SqlClient.SqlClient))
  } finally {
    await migrated.dispose()
  }
  await onDatabase(url("postgres"), `ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`)
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgres()
  try {
    await makeMigratedTemplate(server.url, MIGRATED_TEMPLATE)
  } catch (e) {
    await server.stop()
    throw e
  }
  project.provide("pgBaseUrl", server.url("postgres"))
  return () => server.stop()
}
