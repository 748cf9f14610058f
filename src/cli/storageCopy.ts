/**
 * `agent-bridge storage copy --to URL`: moves a stopped box's SQLite data into an empty PostgreSQL
 * database (issue 24 item 4), verified row for row (`storage/copy/copyStore.ts`), then says how to
 * point the daemon at it.
 *
 * "Stopped": the bridge keeps no pid or lock file, so the SQLite file tells. It runs in WAL mode,
 * and SQLite keeps `bridge.db-wal` beside it while any connection has it open (a daemon, or another
 * `agent-bridge` command) and removes it when the last one closes; so a `-wal` file means the copy
 * could miss what is being written, and it refuses. A daemon that died leaves one too: starting and
 * stopping it once closes the log cleanly.
 *
 * Every failure is one sentence on stderr and exit 1 (2 for a usage error); the URL is never
 * printed (the server is named as host:port/db, and a driver's words have the password masked).
 */
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Redacted } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { ResolvedConfig } from "../config/load.ts"
import { pgServerName, pgUrlProblem } from "../config/storageUrl.ts"
import { reindexNotesPg } from "../services/memory/pg/reindexPg.ts"
import { copyStore } from "../storage/copy/copyStore.ts"
import { DB_FILE, DbLive, DbPostgres, unreachableReason } from "../storage/Db.ts"
import { flag, type ParsedArgs } from "./args.ts"

export const STORAGE_USAGE = "usage: agent-bridge storage copy --to postgres://user@host:5432/db"

const fail = (line: string) => Effect.sync(() => {
  process.stderr.write(`storage copy: ${line}\n`)
  return 1
})

export const storageCommandLine = (config: ResolvedConfig, args: ParsedArgs): Promise<number> => {
  const [, sub, extra] = args.positionals
  const to = flag(args, "to")
  if (sub !== "copy" || extra !== undefined || to === undefined) {
    process.stderr.write(`${STORAGE_USAGE}\n`)
    return Promise.resolve(2)
  }
  const problem = pgUrlProblem(to)
  if (problem !== undefined) return Effect.runPromise(fail(`--to takes ${problem}`))
  const server = pgServerName(to)
  const file = path.join(config.dataDir, DB_FILE)
  if (!fs.existsSync(file)) return Effect.runPromise(fail(`there is no SQLite database at ${file} to copy`))
  if (fs.existsSync(`${file}-wal`)) {
    return Effect.runPromise(fail(`${file} is open (${DB_FILE}-wal beside it): stop the daemon and any agent-bridge command on this data dir first (a daemon that died leaves it too: start and stop it once)`))
  }
  const open = <E>(layer: Layer.Layer<SqlClient.SqlClient, E>) => Effect.map(Layer.build(layer), Context.get(SqlClient.SqlClient))
  return Effect.runPromise(
    Effect.gen(function* () {
      const source = yield* open(DbLive(config.dataDir))
      const target = yield* open(DbPostgres({ url: Redacted.make(to), pool_max: 2, statement_timeout_ms: config.storage.statement_timeout_ms }))
      const copied = yield* copyStore({ source, target, derive: reindexNotesPg(target) })
      const width = Math.max(...copied.map((c) => c.table.length))
      process.stdout.write([
        `copied ${file} to ${server}, verified row for row (counts and a SHA-256 of every row per table):`,
        ...copied.map((c) => `  ${c.table.padEnd(width)}  ${c.rows}`),
        `set storage.url (or AGENT_BRIDGE_STORAGE_URL) to that database and start the daemon; ${file} is left as it was`
      ].join("\n") + "\n")
      return 0
    }).pipe(
      Effect.scoped,
      Effect.catchTags({
        CopyFailed: (e) => fail(e.message),
        StorageUnreachable: (e) => fail(e.message),
        DataDirError: (e) => fail(e.message),
        SqlError: (e) => fail(`the copy to ${server} failed and nothing was kept: ${unreachableReason(e, to)}`)
      }),
      Effect.catchAllCause((cause) => fail(`the copy to ${server} failed and nothing was kept: ${unreachableReason(cause, to)}`))
    )
  )
}
