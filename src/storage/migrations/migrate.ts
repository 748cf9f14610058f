/**
 * Applies the migrations (./index.ts) to the database in context, once, whatever else starts.
 *
 * On SQLite one daemon owns the file, and `@effect/sql`'s migrator needs nothing more. On
 * PostgreSQL two daemons may start at once on one database (several bridges behind one address, a
 * rolling upgrade): the migrator alone does not make that safe. Its table is created outside its
 * transaction (two creators race), and when it finds another migrator's rows it returns at once,
 * so a daemon could start its stores before the tables it needs exist. So the whole run holds a
 * session-level advisory lock, taken on one reserved connection of the pool: the second daemon waits
 * until the first has committed, then finds every migration applied and applies none. The lock goes
 * with its session, so a daemon that dies while migrating frees it.
 */
import { Migrator, SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { migrations } from "./index.ts"

/** The advisory lock's key: "abrg" as a 32-bit integer, one key for the bridge's migrations. */
export const MIGRATION_LOCK_KEY = 0x61627267

const run = Migrator.make({})({ loader: Migrator.fromRecord(migrations) })

/** Holds the advisory lock on a reserved connection while `effect` runs, then releases it. */
const underPgLock = <A, E, R>(sql: SqlClient.SqlClient, effect: Effect.Effect<A, E, R>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const connection = yield* sql.reserve
      yield* Effect.acquireRelease(connection.executeRaw(`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`, []), () =>
        // A failed unlock means a broken connection, whose session (and lock) is gone anyway.
        Effect.ignore(connection.executeRaw(`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`, []))
      )
      return yield* effect
    })
  )

/**
 * Runs `effect` under the migrations' lock on PostgreSQL (as is elsewhere): `@effect/cluster`
 * creates its tables when its storage layers are built, with the same race between two daemons
 * starting at once, so they are built under this lock too (daemon/clusterRunner.ts).
 */
export const underMigrationLock = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.onDialectOrElse({ pg: () => underPgLock(sql, effect), orElse: () => effect }))

/** The migrations applied by this call (id and name), after waiting for any other migrator on PostgreSQL. */
export const migrate = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return yield* sql.onDialectOrElse({ pg: () => underPgLock(sql, run), orElse: () => run })
})
