/**
 * What a PostgreSQL test database costs (test/support/testDb.ts): created empty and migrated by
 * the daemon's migrator, against copied from the migrated template (`CREATE DATABASE ... TEMPLATE`,
 * test/support/pgGlobalSetup.ts) and then checked by the same migrator. Both ways alternate on one
 * throwaway server in one run, so the ratio holds on a busy machine where the milliseconds do not.
 *
 *   npx tsx scripts/bench-pg-template.ts [databases per way and round, default 10]
 */
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import * as os from "node:os"
import { DbPostgres } from "../src/storage/Db.ts"
import { makeMigratedTemplate } from "../test/support/pgGlobalSetup.ts"
import { startPostgres } from "../test/support/pgServer.ts"

const main = async () => {
  const n = Number(process.argv[2] ?? 10)
  const server = await startPostgres()
  const admin = ManagedRuntime.make(PgClient.layer({ url: Redacted.make(server.url("postgres")), maxConnections: 1 }))
  const exec = (q: string) => admin.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(q)))
  const migrate = async (name: string) => {
    const db = ManagedRuntime.make(DbPostgres({ url: Redacted.make(server.url(name)), pool_max: 4, statement_timeout_ms: 30_000 }).pipe(Layer.orDie))
    await db.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`))
    await db.dispose()
  }
  const perDatabase = async (make: (name: string) => string, prefix: string) => {
    const started = performance.now()
    for (let i = 0; i < n; i++) {
      await exec(make(`${prefix}_${i}`))
      await migrate(`${prefix}_${i}`)
    }
    return (performance.now() - started) / n
  }
  try {
    await makeMigratedTemplate(server.url, "bench_template")
    for (let round = 0; round < 2; round++) {
      const fresh = await perDatabase((name) => `CREATE DATABASE ${name}`, `fresh${round}`)
      const copied = await perDatabase((name) => `CREATE DATABASE ${name} TEMPLATE bench_template`, `copy${round}`)
      console.log(
        `round ${round + 1}: empty + migrate ${fresh.toFixed(0)} ms, template copy + migrator check ${copied.toFixed(0)} ms per database; ` +
          `ratio ${(fresh / copied).toFixed(2)} (load average ${os.loadavg()[0]!.toFixed(1)})`
      )
    }
  } finally {
    await admin.dispose()
    await server.stop()
  }
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
