/**
 * `agent-bridge storage copy --to URL`: a data dir written by the real services on SQLite (runs
 * with events and output chunks, client keys, memory notes, inbox rows) copied into a fresh
 * PostgreSQL database of a throwaway server, then read back there through the services that run on
 * PostgreSQL on this branch (memory, inbox) and row for row (runs, keys: their PostgreSQL drivers are
 * p31-ledger's; the ledger's rows must equal the source's, insertion order included); and each refusal.
 */
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, ManagedRuntime, Redacted } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it, vi } from "vitest"
import { parseArgs } from "../../src/cli/args.ts"
import { authLayer } from "../../src/cli/runtime.ts"
import { storageCommandLine } from "../../src/cli/storageCopy.ts"
import type { ResolvedConfig } from "../../src/config/load.ts"
import { Auth } from "../../src/services/auth/Auth.ts"
import { InboxChangesLive } from "../../src/services/inbox/InboxChanges.ts"
import { InboxStore, InboxStoreLive } from "../../src/services/inbox/InboxStore.ts"
import { pendingRunApproval } from "../../src/services/inbox/rows.ts"
import { MemoryStore } from "../../src/services/memory/MemoryStore.ts"
import { MemoryStoreLive } from "../../src/services/memory/MemoryStoreLive.ts"
import { Ledger } from "../../src/services/runs/Ledger.ts"
import { LedgerLive } from "../../src/services/runs/LedgerSql.ts"
import { copyStore } from "../../src/storage/copy/copyStore.ts"
import { DB_FILE, DbLive, DbPostgres } from "../../src/storage/Db.ts"
import { testConfig } from "../support/daemon.ts"
import { usePostgres } from "../support/postgres.ts"
import { newRun } from "../runs/support/newRun.ts"

const pg = usePostgres()
const STORAGE = { pool_max: 2, statement_timeout_ms: 30_000 } as const

/** Runs the verb in this process; what it printed, and its exit code. */
const copy = async (config: ResolvedConfig, ...argv: Array<string>) => {
  let out = ""
  let err = ""
  const o = vi.spyOn(process.stdout, "write").mockImplementation((s) => ((out += String(s)), true))
  const e = vi.spyOn(process.stderr, "write").mockImplementation((s) => ((err += String(s)), true))
  try {
    const code = await storageCommandLine(config, parseArgs(["storage", ...argv]))
    return { code, out, err }
  } finally {
    o.mockRestore()
    e.mockRestore()
  }
}
afterEach(() => vi.restoreAllMocks())

const services = (db: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  ManagedRuntime.make(Layer.mergeAll(MemoryStoreLive, InboxStoreLive.pipe(Layer.provide(InboxChangesLive)), LedgerLive).pipe(Layer.provideMerge(db)))

/** A data dir the real services filled, closed again (as a stopped daemon leaves it). */
const filledDataDir = async () => {
  const config = testConfig()
  const auth = ManagedRuntime.make(authLayer(config))
  await auth.runPromise(Effect.flatMap(Auth, (a) => Effect.all([a.addClient("alice", ["agents"]), a.addClient("bob", ["agents", "memory"])])))
  await auth.runPromise(Effect.flatMap(Auth, (a) => a.revoke("bob")))
  await auth.dispose()
  const rt = services(DbLive(config.dataDir))
  await rt.runPromise(Effect.gen(function* () {
    const ledger = yield* Ledger
    // r3 came through the A2A face: the copy carries the face (migration 0009).
    for (const id of ["r2", "r1", "r3"]) yield* ledger.insert(newRun(id, id === "r3" ? { face: "a2a" } : {}))
    yield* ledger.modify("r1", () => ({ change: { events: [{ type: "tool.started", data: { n: 1 } }], outputAppend: "x".repeat(70_000) }, result: 0 }))
    yield* ledger.modify("r1", () => ({ change: { status: "completed", usage: { tokens: 3 }, outputAppend: "é end" }, result: 0 }))
    const memory = yield* MemoryStore
    yield* memory.add({ namespace: "shared", text: "Café deploy runbook", tags: ["Ops", "source:bridge:alice"], client: "alice" })
    yield* memory.add({ namespace: "private:hermes", text: "staging lives on db2", tags: [], client: "alice" })
    const inbox = yield* InboxStore
    for (const [i, run] of [["a", "r1"], ["b", "r2"]] as const) {
      yield* inbox.insert(pendingRunApproval({ run_id: run, client: "alice", agent: "hermes", hermes_run_id: `h_${run}`, request_id: i, command: "rm -rf /tmp/x", description: "d", choices: ["once"] }, `apr_${i}`, "2026-12-02T04:00:00.000Z"))
    }
    yield* inbox.close("apr_b", { state: "denied", at: "2026-12-02T04:01:00.000Z", by: "admin" })
  }))
  await rt.dispose()
  return config
}

/** The client of a database layer, open for the enclosing scope. */
const openDb = <E>(layer: Layer.Layer<SqlClient.SqlClient, E>) => Effect.map(Layer.build(layer), Context.get(SqlClient.SqlClient))

const TABLES = ["clients", "runs", "run_events", "run_output", "run_stop_requests", "inbox"] as const
const KEYS: Record<(typeof TABLES)[number], string> = {
  clients: "name", runs: "run_id", run_events: "run_id, seq", run_output: "run_id, start_byte", run_stop_requests: "run_id", inbox: "id"
}

/** Every row of the ledger's and the keys' tables, in key order (rowid / insert_seq as `order`). */
const rowsOf = (db: Layer.Layer<SqlClient.SqlClient, unknown>, dialect: "sqlite" | "pg") =>
  Effect.runPromise(Effect.scoped(Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const out: Record<string, ReadonlyArray<unknown>> = {}
    for (const t of TABLES) {
      const order = (t === "runs" || t === "inbox") ? (dialect === "pg" ? ", insert_seq AS order_" : ", rowid AS order_") : ""
      const rows = yield* sql.unsafe<Record<string, unknown>>(`SELECT *${order} FROM ${t} ORDER BY ${KEYS[t]}`)
      out[t] = rows.map(({ insert_seq: _, ...rest }) => rest)
    }
    return out
  }).pipe(Effect.provide(db))))

describe("agent-bridge storage copy --to URL", () => {
  it("copies every table, verified, and the PostgreSQL database then reads as the SQLite file did", async (ctx) => {
    const config = await filledDataDir()
    const url = await pg.database(ctx)
    const before = await rowsOf(DbLive(config.dataDir), "sqlite")
    const sqliteRt = services(DbLive(config.dataDir))
    const readAll = Effect.gen(function* () {
      const memory = yield* MemoryStore
      const inbox = yield* InboxStore
      return {
        notes: yield* memory.list({ namespaces: ["shared", "private:hermes"], limit: 10, offset: 0 }),
        found: (yield* memory.search({ namespaces: ["shared", "private:hermes"], query: "cafe ops staging", limit: 10 })).map((n) => n.id).sort(),
        inbox: yield* inbox.list()
      }
    })
    const seen = await sqliteRt.runPromise(readAll)
    await sqliteRt.dispose()

    const r = await copy(config, "copy", "--to", url)
    expect(r.err).toBe("")
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/verified row for row/)
    // 70 KB of output is several chunks; each table's line is its source count.
    expect(before["run_output"]!.length).toBeGreaterThan(1)
    for (const t of TABLES) expect(r.out).toMatch(new RegExp(`^ {2}${t} +${before[t]!.length}$`, "m"))
    expect(r.out).toMatch(/^ {2}memory_notes +2$/m)
    expect(r.out).not.toContain(url)

    const target = DbPostgres({ url: Redacted.make(url), ...STORAGE })
    expect(await rowsOf(target, "pg")).toEqual(before)
    expect((before["runs"] as ReadonlyArray<Record<string, unknown>>).map((row) => [row["run_id"], row["face"]])).toEqual(expect.arrayContaining([["r3", "a2a"], ["r1", "mcp"]]))
    const pgRt = ManagedRuntime.make(Layer.mergeAll(MemoryStoreLive, InboxStoreLive.pipe(Layer.provide(InboxChangesLive))).pipe(Layer.provideMerge(target)))
    const after = await pgRt.runPromise(readAll)
    expect(after).toEqual(seen)
    expect(seen.found).toHaveLength(2)
    // New rows go on past the copied ones (the identity sequences moved).
    await pgRt.runPromise(Effect.flatMap(MemoryStore, (m) => m.add({ namespace: "shared", text: "after the move", tags: [], client: "alice" })))
    expect((await pgRt.runPromise(Effect.flatMap(MemoryStore, (m) => m.list({ namespaces: ["shared"], limit: 1, offset: 0 }))))[0]!.text).toBe("after the move")
    await pgRt.dispose()

    // A second copy finds the target full and refuses, leaving it as it was.
    const again = await copy(config, "copy", "--to", url)
    expect(again.code).toBe(1)
    expect(again.err).toMatch(/^storage copy: the target is not empty \(clients holds 2 rows\)/)
    expect(again.err.trim().split("\n")).toHaveLength(1)
  }, 120_000)

  it("refuses while the SQLite file is open (a running daemon), and names no password", async (ctx) => {
    const config = await filledDataDir()
    const url = new URL(await pg.database(ctx))
    url.password = "s3cret-pw"
    const open = services(DbLive(config.dataDir))
    await open.runPromise(Effect.void)
    try {
      expect(fs.existsSync(path.join(config.dataDir, `${DB_FILE}-wal`))).toBe(true)
      const r = await copy(config, "copy", "--to", url.toString())
      expect(r.code).toBe(1)
      expect(r.err).toMatch(/is open \(bridge\.db-wal beside it\): stop the daemon/)
      expect(r.err).not.toContain("s3cret-pw")
    } finally {
      await open.dispose()
    }
  }, 60_000)

  it("a wrong password fails in one sentence without the password; the source is kept", async (ctx) => {
    const config = await filledDataDir()
    const url = new URL(await pg.database(ctx))
    url.username = "nobody"
    url.password = "s3cret-pw"
    const r = await copy(config, "copy", "--to", url.toString())
    expect(r.code).toBe(1)
    expect(r.err).toMatch(/^storage copy: cannot reach PostgreSQL at /)
    expect(r.err).not.toContain("s3cret-pw")
    expect(r.err.trim().split("\n")).toHaveLength(1)
    expect(fs.existsSync(path.join(config.dataDir, DB_FILE))).toBe(true)
  }, 60_000)

  it("a copy that does not verify is rolled back (the target stays empty); an unknown target table refuses", async (ctx) => {
    const config = await filledDataDir()
    const url = await pg.database(ctx)
    const run = (derive: (target: SqlClient.SqlClient) => Effect.Effect<void, any>) =>
      Effect.runPromise(Effect.scoped(Effect.gen(function* () {
        const source = yield* openDb(DbLive(config.dataDir))
        const target = yield* openDb(DbPostgres({ url: Redacted.make(url), ...STORAGE }))
        const result = yield* Effect.flip(copyStore({ source, target, derive: derive(target) }))
        const rows = yield* target<{ n: number }>`SELECT COUNT(*)::int AS n FROM clients`
        return { result, n: rows[0]?.n }
      })))
    // A derivation that changes a copied value: the digests differ, nothing is kept.
    const bent = await run((t) => Effect.asVoid(t`UPDATE clients SET scopes = 'changed' WHERE name = 'alice'`))
    expect(bent.result).toMatchObject({ _tag: "CopyFailed" })
    expect((bent.result as { message: string }).message).toMatch(/^the copy of clients does not match the source \(2 rows there, 2 copied, digests differ\); nothing was kept$/)
    expect(bent.n).toBe(0)
    await Effect.runPromise(Effect.scoped(Effect.flatMap(openDb(DbPostgres({ url: Redacted.make(url), ...STORAGE })), (t) => t`CREATE TABLE extra (x int)`)))
    const extra = await run(() => Effect.void)
    expect((extra.result as { message: string }).message).toMatch(/tables the copy does not know \(extra\)/)
  }, 60_000)

  it("usage, a URL that is not PostgreSQL's, and a data dir with no database", async () => {
    const config = testConfig()
    expect((await copy(config, "copy")).code).toBe(2)
    expect((await copy(config, "move", "--to", "postgres://u@h/db")).code).toBe(2)
    const notPg = await copy(config, "copy", "--to", "mysql://u:pw@h/db")
    expect(notPg.code).toBe(1)
    expect(notPg.err).toMatch(/--to takes a postgres:\/\/ or postgresql:\/\/ URL/)
    const none = await copy(config, "copy", "--to", "postgres://u@127.0.0.1:1/db")
    expect(none.code).toBe(1)
    expect(none.err).toMatch(/there is no SQLite database at .*bridge\.db to copy/)
  })
})
