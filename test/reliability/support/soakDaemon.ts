/**
 * The whole daemon in this process on 127.0.0.1:0, on a clock the test can move forward
 * (skewClock.ts), with the numbers a soak test reads: the database's size on disk and its row
 * counts, measured after a WAL checkpoint so they count what is stored, not what is in flight.
 */
import { HttpServer } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { ResolvedConfig } from "../../../src/config/load.ts"
import { daemonLayer } from "../../../src/daemon/Daemon.ts"
import { Auth } from "../../../src/services/auth/Auth.ts"
import type { Scope } from "../../../src/request/Caller.ts"
import { DB_FILE } from "../../../src/storage/Db.ts"
import type { SkewClock } from "../../support/skewClock.ts"

export interface SoakDaemon {
  readonly url: string
  readonly adminKey: string
  readonly addClient: (name: string, scopes?: ReadonlyArray<Scope>) => Promise<string>
  /** Checkpoints the WAL into the database file and returns the file's size and row counts. */
  readonly storage: () => Promise<{ readonly dbBytes: number; readonly walBytesBefore: number; readonly runs: number; readonly events: number; readonly outputChunks: number }>
  readonly close: () => Promise<void>
}

const sizeOf = (file: string) => (fs.existsSync(file) ? fs.statSync(file).size : 0)

export const startSoakDaemon = async (config: ResolvedConfig, clock: SkewClock): Promise<SoakDaemon> => {
  const runtime = ManagedRuntime.make(daemonLayer(config).pipe(Layer.provide(clock.layer)))
  const port = await runtime.runPromise(HttpServer.addressWith((a) => Effect.succeed(a._tag === "TcpAddress" ? a.port : 0)))
  const auth = await runtime.runPromise(Auth)
  const dbFile = path.join(config.dataDir, DB_FILE)
  const count = (sql: SqlClient.SqlClient, table: string) =>
    Effect.map(sql.unsafe<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`), (rows) => rows[0]?.n ?? -1)
  return {
    url: `http://127.0.0.1:${port}`,
    adminKey: Redacted.value(auth.adminKey),
    addClient: (name, scopes = ["agents"]) => Effect.runPromise(Effect.map(auth.addClient(name, scopes), (r) => r.key)),
    storage: () =>
      runtime.runPromise(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const walBytesBefore = sizeOf(`${dbFile}-wal`)
          yield* sql.unsafe("PRAGMA wal_checkpoint(TRUNCATE)")
          return {
            dbBytes: sizeOf(dbFile),
            walBytesBefore,
            runs: yield* count(sql, "runs"),
            events: yield* count(sql, "run_events"),
            outputChunks: yield* count(sql, "run_output")
          }
        })
      ),
    close: () => runtime.dispose()
  }
}
