/**
 * The inbox's `bridge.store_unavailable` sentences name the database as the runs' do
 * (`databasePlace`): on SQLite the file in the data dir, on PostgreSQL the server as host:port/db,
 * never the URL nor its password. Real faults on real stores built as the CLI and the daemon build
 * them (`storageLayer`): a SQLite file that may not be written (`query_only`), and on a PostgreSQL
 * server of this file's own a read that waits on another session's lock past
 * `storage.statement_timeout_ms` (cancelled by the server, 57014).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import * as path from "node:path"
import pg from "pg"
import { afterEach, describe, expect, it } from "vitest"
import { storageLayer } from "../../src/cli/runtime.ts"
import type { ResolvedConfig } from "../../src/config/load.ts"
import { InboxChangesLive } from "../../src/services/inbox/InboxChanges.ts"
import { InboxStore, InboxStoreLive } from "../../src/services/inbox/InboxStore.ts"
import { pendingRunApproval } from "../../src/services/inbox/rows.ts"
import { DB_FILE } from "../../src/storage/Db.ts"
import { testConfig } from "../support/daemon.ts"
import { usePostgres } from "../support/postgres.ts"

const pgServer = usePostgres()
const runtimes: Array<ManagedRuntime.ManagedRuntime<unknown, unknown>> = []
afterEach(async () => {
  for (const rt of runtimes.splice(0)) await rt.dispose().catch(() => undefined)
})

const inboxOn = (config: ResolvedConfig) => {
  const rt = ManagedRuntime.make(InboxStoreLive.pipe(Layer.provide(InboxChangesLive), Layer.provideMerge(storageLayer(config))))
  runtimes.push(rt as ManagedRuntime.ManagedRuntime<unknown, unknown>)
  return rt
}

const row = pendingRunApproval(
  { run_id: "run_1", client: "alice", agent: "hermes", hermes_run_id: "h_1", request_id: null, command: "ls", description: "list", choices: ["once"] },
  "apr_1",
  "2026-12-02T04:00:00.000Z"
)

/** The failure of `effect` as `[tag, message]` (a success or a defect fails the test). */
const failure = (effect: Effect.Effect<unknown, { readonly _tag: string; readonly message: string }, InboxStore>) =>
  Effect.flip(effect).pipe(Effect.map((e) => [e._tag, e.message] as const))

describe("the inbox's store_unavailable names the database", () => {
  it("on SQLite: the database file", async () => {
    const config = testConfig()
    const rt = inboxOn(config)
    await rt.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe("PRAGMA query_only = ON")))
    const [tag, message] = await rt.runPromise(failure(Effect.flatMap(InboxStore, (s) => s.insert(row))))
    expect(tag).toBe("StoreUnavailable")
    expect(message).toBe(
      `the inbox could not insert a row failed: the bridge may not write ${path.join(config.dataDir, DB_FILE)} (SQLITE_READONLY: read-only or not permitted); make it writable for the bridge, then retry`
    )
  })

  it("on PostgreSQL: host:port/db, without the URL or its password", async (ctx) => {
    const base = new URL(await pgServer.database(ctx))
    const database = base.pathname.slice(1)
    // Trust authentication ignores the password; the sentence must not repeat it all the same.
    const url = new URL(base)
    url.password = "s3cret-pw"
    const plain = testConfig()
    const config: ResolvedConfig = { ...plain, storage: { ...plain.storage, statement_timeout_ms: 1000, url: Redacted.make(url.toString()) } }
    const rt = inboxOn(config)
    await rt.runPromise(Effect.flatMap(InboxStore, (s) => s.insert(row)))
    // Another session holds the table: the inbox's read waits past the statement timeout.
    const other = new pg.Client({ connectionString: base.toString() })
    await other.connect()
    try {
      await other.query("BEGIN")
      await other.query("LOCK TABLE inbox IN ACCESS EXCLUSIVE MODE")
      const [tag, message] = await rt.runPromise(failure(Effect.flatMap(InboxStore, (s) => s.list())))
      expect(tag).toBe("StoreUnavailable")
      expect(message).toBe(
        `the inbox could not list rows failed: the database 127.0.0.1:${base.port}/${database} cancelled a statement that ran longer than storage.statement_timeout_ms (57014); retry, or raise storage.statement_timeout_ms if such statements are expected`
      )
      expect(message).not.toContain("s3cret-pw")
      expect(message).not.toContain("postgres://")
    } finally {
      await other.query("ROLLBACK").catch(() => undefined)
      await other.end()
    }
    // With the lock gone the same store answers.
    expect((await rt.runPromise(Effect.flatMap(InboxStore, (s) => s.list()))).map((r) => r.id)).toEqual(["apr_1"])
  }, 60_000)
})
