/**
 * A throwaway PostgreSQL for the tests of one describe (or file): `pgServer.ts` starts it in
 * beforeAll and stops it in afterAll; each test takes a database of its own with `pg.database(ctx)`.
 * When the server cannot start the tests are skipped with the reason, unless `CI` is set: then they
 * fail. (The PostgreSQL project, `test/vitest.pg.config.ts`, starts one server for the whole run
 * instead: `pgGlobalSetup.ts`, `testDb.ts`.)
 */
import { afterAll, beforeAll } from "vitest"
import { onStartFailure, type PgServer, startPostgres } from "./pgServer.ts"

export * from "./pgServer.ts"

const log = (line: string) => process.stderr.write(`[postgres] ${line}\n`)

export interface UsePostgres {
  /** The running server; skips the test (with the reason) when none could start. */
  readonly server: (ctx: { readonly skip: (note?: string) => void }) => PgServer
  /** A fresh empty database on it, as a URL. */
  readonly database: (ctx: { readonly skip: (note?: string) => void }) => Promise<string>
}

/** A server for the tests of the enclosing describe (or file): see the module comment. */
export const usePostgres = (): UsePostgres => {
  let server: PgServer | undefined
  let skipped: string | undefined
  beforeAll(async () => {
    try {
      server = await startPostgres()
    } catch (e) {
      skipped = onStartFailure(e instanceof Error ? e.message : String(e)).skip
      log(skipped)
    }
  }, 20 * 60_000)
  afterAll(async () => {
    await server?.stop()
    server = undefined
  }, 120_000)
  const get = (ctx: { readonly skip: (note?: string) => void }): PgServer => {
    if (server === undefined) {
      ctx.skip(skipped ?? "PostgreSQL not started")
      throw new Error(skipped ?? "PostgreSQL not started")
    }
    return server
  }
  return { server: get, database: (ctx) => get(ctx).createDatabase() }
}
