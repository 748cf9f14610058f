/**
 * `agent-bridge storage copy --to URL`: a data dir written by the real services on SQLite (runs
 * with events and output chunks, client keys, memory notes, inbox rows) copied into a fresh
 * PostgreSQL database of a throwaway server, then read back there through the services that run on
 * PostgreSQL: row for row (insertion order included), through the services the CLI and the daemon
 * build on `storage.url` (Ledger, Auth, memory, inbox: what they read equals what they read on the
 * SQLite file, every key authenticates with its original secret, a revoked one stays refused), and
 * through a real daemon (`agent-bridge serve`) started on the URL, whose `agent_run_status` and
 * `agent_run_events` answer the client's original key as before; and each refusal.
 */
import { SqlClient } from "@effect/sql"
import type { Client } from "@modelcontextprotocol/client"
import { Context, Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it, vi } from "vitest"
import { parseArgs } from "../../src/cli/args.ts"
import { storageLayer } from "../../src/cli/runtime.ts"
import { storageCommandLine } from "../../src/cli/storageCopy.ts"
import type { ResolvedConfig } from "../../src/config/load.ts"
import { Auth, AuthLive } from "../../src/services/auth/Auth.ts"
import { InboxChangesLive } from "../../src/services/inbox/InboxChanges.ts"
import { InboxStore, InboxStoreLive } from "../../src/services/inbox/InboxStore.ts"
import { pendingRunApproval } from "../../src/services/inbox/rows.ts"
import { MemoryStore } from "../../src/services/memory/MemoryStore.ts"
import { MemoryStoreLive } from "../../src/services/memory/MemoryStoreLive.ts"
import { Ledger } from "../../src/services/runs/Ledger.ts"
import { LedgerLive } from "../../src/services/runs/LedgerSql.ts"
import { copyStore } from "../../src/storage/copy/copyStore.ts"
import { DB_FILE, DbLive, DbPostgres } from "../../src/storage/Db.ts"
import { connectMcp, testConfig } from "../support/daemon.ts"
import { spawnDaemon } from "../support/daemonProcess.ts"
import { freeLoopbackPort } from "../support/freePort.ts"
import { usePostgres } from "../support/postgres.ts"
import { newRun } from "../support/records.ts"

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

/**
 * The stores as the CLI and the daemon build them on `config` (`storageLayer`: the SQLite file of its
 * data dir, or `storage.url`'s database, with its config and change feed).
 */
const services = (config: ResolvedConfig) =>
  ManagedRuntime.make(
    Layer.mergeAll(MemoryStoreLive, InboxStoreLive.pipe(Layer.provide(InboxChangesLive)), LedgerLive, AuthLive).pipe(Layer.provideMerge(storageLayer(config)))
  )

/** `config` moved onto the PostgreSQL database at `url`. */
const onPostgres = (config: ResolvedConfig, url: string): ResolvedConfig => ({ ...config, storage: { ...config.storage, url: Redacted.make(url) } })

/** A data dir the real services filled, closed again (as a stopped daemon leaves it), and the clients' keys. */
const filledDataDir = async () => {
  const config = testConfig()
  const rt = services(config)
  const keys = await rt.runPromise(Effect.gen(function* () {
    const auth = yield* Auth
    const alice = yield* auth.addClient("alice", ["agents"])
    const bob = yield* auth.addClient("bob", ["agents", "memory"])
    yield* auth.revoke("bob")
    return { alice: alice.key, bob: bob.key }
  }))
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
  return Object.assign(config, { keys })
}

const RUN_IDS = ["r1", "r2", "r3"] as const

/** What the Ledger and Auth services answer for the copied runs and keys. */
const readRunsAndKeys = (keys: { readonly alice: string; readonly bob: string }) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const auth = yield* Auth
    const runs = []
    for (const id of RUN_IDS) {
      runs.push({
        run: yield* ledger.get(id),
        events: yield* ledger.eventsAfter(id, 0, 100),
        output: yield* ledger.output(id)
      })
    }
    return {
      runs,
      alice: yield* auth.authenticate(keys.alice),
      bob: yield* auth.authenticate(keys.bob),
      // The last use moves with each authentication; the rest of each client's record must not.
      clients: (yield* auth.listClients).map(({ last_used_at: _, ...client }) => client)
    }
  })

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

interface StatusView { status: string; client: string; output: string | null; output_total: number; next_offset: number | null }

/**
 * The daemon (`agent-bridge serve`, a child process) on the copied database: run r1 read through
 * `agent_run_status` (every output window) and `agent_run_events` with alice's original key, as the
 * Ledger holds it; bob's revoked key is refused at the door.
 */
const readThroughDaemon = async (
  config: ResolvedConfig & { readonly keys: { readonly alice: string; readonly bob: string } },
  url: string,
  r1: { readonly output: string; readonly events: ReadonlyArray<{ readonly seq: number; readonly type: string; readonly data: unknown }> }
) => {
  const port = await freeLoopbackPort()
  const configFile = path.join(path.dirname(config.dataDir), "serve-on-pg.yaml")
  // No Hermes configured: the daemon embeds its simulator (r2 and r3, still running, are its to reconcile).
  fs.writeFileSync(configFile, `bridge: {port: ${port}, data_dir: ${JSON.stringify(config.dataDir)}}\nstorage: {url: ${JSON.stringify(url)}}\n`)
  // The SQLite file is out of the way: whatever the daemon answers comes from PostgreSQL.
  const file = path.join(config.dataDir, DB_FILE)
  fs.renameSync(file, `${file}.moved`)
  let mcp: Client | undefined
  const daemon = await spawnDaemon({ configFile, port }).catch((e: unknown) => {
    fs.renameSync(`${file}.moved`, file)
    throw e
  })
  try {
    mcp = await connectMcp(daemon.url, config.keys.alice)
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = (await mcp!.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: unknown; content?: unknown }
      expect(r.isError ?? false, JSON.stringify(r.content)).toBe(false)
      return r.structuredContent
    }
    let output = ""
    let view = (await call("agent_run_status", { run_id: "r1" })) as StatusView
    expect([view.status, view.client]).toEqual(["completed", "alice"])
    for (let windows = 0; ; windows++) {
      expect(windows).toBeLessThan(20)
      output += view.output ?? ""
      if (view.next_offset === null) break
      view = (await call("agent_run_status", { run_id: "r1", offset: view.next_offset })) as StatusView
    }
    expect(output).toBe(r1.output)
    expect(view.output_total).toBe(Buffer.byteLength(r1.output, "utf8"))
    const page = (await call("agent_run_events", { run_id: "r1", since_seq: 0 })) as { events: ReadonlyArray<{ seq: number; type: string; data: unknown }> }
    expect(page.events.map((e) => [e.seq, e.type, e.data])).toEqual(r1.events.map((e) => [e.seq, e.type, e.data]))
    // The revoked key: no session at all.
    await expect(connectMcp(daemon.url, config.keys.bob)).rejects.toThrow()
  } finally {
    await mcp?.close().catch(() => undefined)
    await daemon.kill("SIGTERM")
    // The daemon made no SQLite file of its own beside it.
    expect(fs.existsSync(file)).toBe(false)
    fs.renameSync(`${file}.moved`, file)
  }
}

describe("agent-bridge storage copy --to URL", () => {
  it("copies every table, verified, and the PostgreSQL database then reads as the SQLite file did", async (ctx) => {
    const config = await filledDataDir()
    const url = await pg.database(ctx)
    const sqliteRt = services(config)
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
    const ledgerSeen = await sqliteRt.runPromise(readRunsAndKeys(config.keys))
    await sqliteRt.dispose()
    // Read after the services did (an authentication stamps the key's last use).
    const before = await rowsOf(DbLive(config.dataDir), "sqlite")
    // What the SQLite side answers is what a reader would check: a finished run with its 70 KB, alice in, bob out.
    expect(Option.map(ledgerSeen.runs[0]!.run, (r) => r.status)).toEqual(Option.some("completed"))
    expect(ledgerSeen.runs[0]!.output).toBe(`${"x".repeat(70_000)}é end`)
    expect(ledgerSeen.runs[0]!.events.map((e) => e.type)).toContain("tool.started")
    expect(Option.map(ledgerSeen.alice, (c) => [c.client, c.scopes])).toEqual(Option.some(["alice", ["agents"]]))
    expect(ledgerSeen.bob).toEqual(Option.none())

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
    const pgConfig = onPostgres(config, url)
    const pgRt = services(pgConfig)
    const after = await pgRt.runPromise(readAll)
    expect(after).toEqual(seen)
    expect(seen.found).toHaveLength(2)
    // The Ledger and Auth on PostgreSQL: every run's record, events and output, every key, as on SQLite.
    expect(await pgRt.runPromise(readRunsAndKeys(config.keys))).toEqual(ledgerSeen)
    // New rows go on past the copied ones (the identity sequences moved).
    await pgRt.runPromise(Effect.flatMap(MemoryStore, (m) => m.add({ namespace: "shared", text: "after the move", tags: [], client: "alice" })))
    expect((await pgRt.runPromise(Effect.flatMap(MemoryStore, (m) => m.list({ namespaces: ["shared"], limit: 1, offset: 0 }))))[0]!.text).toBe("after the move")
    await pgRt.dispose()

    await readThroughDaemon(config, url, ledgerSeen.runs[0]!)

    // A second copy finds the target full and refuses, leaving it as it was.
    const again = await copy(config, "copy", "--to", url)
    expect(again.code).toBe(1)
    expect(again.err).toMatch(/^storage copy: the target is not empty \(clients holds 2 rows\)/)
    expect(again.err.trim().split("\n")).toHaveLength(1)
  }, 240_000)

  it("refuses while the SQLite file is open (a running daemon), and names no password", async (ctx) => {
    const config = await filledDataDir()
    const url = new URL(await pg.database(ctx))
    url.password = "s3cret-pw"
    const open = services(config)
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
