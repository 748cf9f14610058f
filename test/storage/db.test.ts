/**
 * The configured store (src/storage/Db.ts, issue 24 items 2, 4 and 5): the SQLite file by default;
 * on PostgreSQL a pool bound by storage.pool_max, statement_timeout on every connection, the
 * migrations in their PostgreSQL form (the memory notes' tsvector under a GIN index), applied once
 * when two daemons start at once; a server that does not answer is one sentence naming it.
 */
import { SqlClient } from "@effect/sql"
import { Cause, Effect, Exit, Layer, Redacted } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import type { StorageSection } from "../../src/config/schema.ts"
import { causeLine } from "../../src/daemon/startFailure.ts"
import { DB_FILE, DbFor, pgConnectionUrl, unreachableReason } from "../../src/storage/Db.ts"
import { migrations } from "../../src/storage/migrations/index.ts"
import { tempDir } from "../support/daemon.ts"
import { freeLoopbackPort } from "../support/freePort.ts"
import { usePostgres } from "../support/postgres.ts"

const storage = (url: string | undefined, more: Partial<StorageSection> = {}): StorageSection => ({
  url: url === undefined ? undefined : Redacted.make(url),
  pool_max: 10,
  statement_timeout_ms: 5000,
  ...more
})

/** Runs `body` with the SqlClient of `layer`, the layer built and torn down around it. */
const withDb = <A, E>(layer: Layer.Layer<SqlClient.SqlClient, unknown>, body: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(Layer.build(layer), (ctx) => body(ctx.unsafeMap.get(SqlClient.SqlClient.key) as SqlClient.SqlClient))) as Effect.Effect<A, unknown>)

const TABLES = ["clients", "inbox", "memory_notes", "run_events", "run_output", "run_stop_requests", "runs"]
const migrationCount = Object.keys(migrations).length

describe("the store by default", () => {
  it("is the SQLite file in the data dir, migrated", async () => {
    const dataDir = tempDir("agent-bridge-db-")
    const names = await withDb(DbFor({ dataDir, storage: storage(undefined) }), (sql) =>
      sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ${sql.in(TABLES)} ORDER BY name`
    )
    expect(names.map((r) => r.name)).toEqual(TABLES)
    expect(fs.existsSync(path.join(dataDir, DB_FILE))).toBe(true)
  })
})

describe("pgConnectionUrl", () => {
  it("sets statement_timeout, replacing the URL's own, and keeps the rest as it was", () => {
    const out = new URL(pgConnectionUrl("postgres://u:p%40ss@h:6543/db?sslmode=require&statement_timeout=0", 250))
    expect(out.searchParams.get("statement_timeout")).toBe("250")
    expect(out.searchParams.get("sslmode")).toBe("require")
    expect(out.password).toBe("p%40ss")
    expect(`${out.hostname}:${out.port}${out.pathname}`).toBe("h:6543/db")
  })
})

describe("the store on PostgreSQL", () => {
  const pg = usePostgres()
  const dataDir = () => tempDir("agent-bridge-db-")

  it("is migrated in the PostgreSQL forms, the memory notes searchable through a GIN-indexed tsvector", async (ctx) => {
    const url = await pg.database(ctx)
    const layer = DbFor({ dataDir: dataDir(), storage: storage(url) })
    const seen = await withDb(layer, (sql) =>
      Effect.all({
        tables: sql<{ table_name: string }>`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name IN ${sql.in(TABLES)} ORDER BY table_name`,
        search: sql<{ data_type: string }>`SELECT data_type FROM information_schema.columns WHERE table_name = 'memory_notes' AND column_name = 'search'`,
        index: sql<{ indexdef: string }>`SELECT indexdef FROM pg_indexes WHERE tablename = 'memory_notes' AND indexname = 'memory_notes_search'`,
        applied: sql<{ n: number }>`SELECT count(*)::int AS n FROM effect_sql_migrations`,
        times: sql<{ data_type: string }>`SELECT data_type FROM information_schema.columns WHERE table_name = 'inbox' AND column_name = 'created_at'`,
        found: Effect.zipRight(
          sql`INSERT INTO memory_notes (id, namespace, text, tags, client, created_at, search)
              VALUES ('n1', 'ns', 'the deploy key rotates weekly', '[]', 'c', 1, to_tsvector('simple', 'the deploy key rotates weekly'))`,
          sql<{ id: string }>`SELECT id FROM memory_notes WHERE search @@ websearch_to_tsquery('simple', 'deploy rotates')`
        )
      })
    )
    expect(seen.tables.map((r) => r.table_name)).toEqual(TABLES)
    expect(seen.search[0]?.data_type).toBe("tsvector")
    expect(seen.index[0]?.indexdef).toMatch(/USING gin \(search\)/)
    expect(seen.applied[0]?.n).toBe(migrationCount)
    expect(seen.times[0]?.data_type).toBe("bigint")
    expect(seen.found.map((r) => r.id)).toEqual(["n1"])
    // A second start on the same database applies nothing and keeps the rows.
    const again = await withDb(layer, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM memory_notes`)
    expect(again[0]?.n).toBe(1)
  }, 120_000)

  it("two daemons starting at once on one database apply each migration once", async (ctx) => {
    for (let round = 0; round < 3; round++) {
      const url = await pg.database(ctx)
      const start = () =>
        withDb(DbFor({ dataDir: dataDir(), storage: storage(url) }), (sql) =>
          // Each one, once started, finds every table (the other's run did not leave it half-made).
          Effect.zipRight(sql`SELECT count(*) FROM run_stop_requests, memory_notes, inbox`, sql<{ migration_id: number }>`SELECT migration_id FROM effect_sql_migrations ORDER BY migration_id`)
        )
      const [a, b] = await Promise.all([start(), start()])
      // The versions are the keys' prefixes (a number another branch holds may be missing here).
      const expected = Object.keys(migrations).map((k) => Number(k.slice(0, 4)))
      expect(a.map((r) => r.migration_id)).toEqual(expected)
      expect(b.map((r) => r.migration_id)).toEqual(expected)
    }
  }, 180_000)

  it("bounds the pool by storage.pool_max and sets statement_timeout on each connection", async (ctx) => {
    const url = await pg.database(ctx)
    const layer = DbFor({ dataDir: dataDir(), storage: storage(url, { pool_max: 2, statement_timeout_ms: 300 }) })
    const seen = await withDb(layer, (sql) =>
      Effect.all({
        pids: Effect.all(
          Array.from({ length: 6 }, () => sql<{ pid: number; timeout: string }>`SELECT pg_backend_pid() AS pid, current_setting('statement_timeout') AS timeout, pg_sleep(0.1)`),
          { concurrency: "unbounded" }
        ),
        slow: Effect.exit(sql`SELECT pg_sleep(5)`)
      })
    )
    const rows = seen.pids.flat()
    expect(new Set(rows.map((r) => r.pid)).size).toBeLessThanOrEqual(2)
    expect(new Set(rows.map((r) => r.timeout))).toEqual(new Set(["300ms"]))
    expect(Exit.isFailure(seen.slow)).toBe(true)
    if (Exit.isFailure(seen.slow)) expect(JSON.stringify(Cause.squash(seen.slow.cause), Object.getOwnPropertyNames(Cause.squash(seen.slow.cause)))).toMatch(/57014|statement timeout/)
  }, 120_000)
})

describe("a PostgreSQL that does not answer at start", () => {
  it("is one sentence naming host:port/db, without the password or a stack trace", async () => {
    const port = await freeLoopbackPort() // nothing listens there
    const url = `postgres://bridge:Sup3r-secret-pw@127.0.0.1:${port}/ledger`
    const exit = await Effect.runPromiseExit(Effect.scoped(Layer.build(DbFor({ dataDir: tempDir("agent-bridge-db-"), storage: storage(url) }))))
    expect(Exit.isFailure(exit)).toBe(true)
    if (!Exit.isFailure(exit)) return
    const line = causeLine(exit.cause, { what: "agent-bridge serve", dataDir: "/nowhere" })
    expect(line).toBe(
      `agent-bridge serve: cannot reach PostgreSQL at 127.0.0.1:${port}/ledger: connect ECONNREFUSED 127.0.0.1:${port}; check that the server runs and that storage.url names it`
    )
    expect(line).not.toContain("Sup3r-secret-pw")
    expect(line).not.toContain("\n")
  }, 60_000)
})

describe("the start failure line for an unreachable PostgreSQL", () => {
  it("is the error's own sentence even beneath a wrapper, without the data dir's hint", async () => {
    const { StorageUnreachable } = await import("../../src/storage/Db.ts")
    const { failureLine } = await import("../../src/daemon/startFailure.ts")
    const inner = new StorageUnreachable({ server: "db.lan:5432/ledger", reason: "password authentication failed for user \"bridge\"" })
    const line = failureLine(new Error("layer failed", { cause: inner }), { what: "agent-bridge serve", dataDir: "/data" })
    expect(line).toBe(
      'agent-bridge serve: cannot reach PostgreSQL at db.lan:5432/ledger: password authentication failed for user "bridge"; check that the server runs and that storage.url names it'
    )
  })
})

describe("unreachableReason", () => {
  it("says what each address answered, drops the driver's own wrapper, and masks the password", () => {
    const url = "postgres://bridge:p%40ss-w0rd@db.lan/ledger"
    const several = Object.assign(new AggregateError([new Error("connect ECONNREFUSED ::1:5432"), new Error("connect ECONNREFUSED 127.0.0.1:5432")], ""), {})
    const wrapped = Object.assign(new Error("PgClient: Failed to connect"), { cause: several })
    expect(unreachableReason(wrapped, url)).toBe("connect ECONNREFUSED ::1:5432: connect ECONNREFUSED 127.0.0.1:5432")
    for (const shown of ["p%40ss-w0rd", "p@ss-w0rd"]) {
      const said = unreachableReason(new Error(`no pg_hba.conf entry for password ${shown}`), url)
      expect(said).toBe("no pg_hba.conf entry for password ***")
    }
    expect(unreachableReason({}, url)).toBe("no answer")
  })
})
