/**
 * The per-client cap and the idempotent single flight across replicas (issue 25 item 4): three
 * daemons on one PostgreSQL behind nginx (`startFleet`), `bridge.max_concurrent_runs_per_client: 3`.
 * Each replica keeps its own count of starts in flight, so only the ledger can tell what the others
 * started: the insert counts the client's unfinished runs again under the client's lock
 * (`LedgerPg.lockClient`).
 *
 * - A client one run short of its cap sends one idempotent start 20 times at once through nginx
 *   (spread over the replicas): every answer is the same run, none `bridge.too_many_runs`, and the
 *   ledger holds one run for the key.
 * - Another client sends 12 distinct starts at once through nginx: at most 3 are answered with a
 *   run, the others `bridge.too_many_runs`; the ledger never holds more than 3 of its unfinished
 *   runs, and every Hermes run started for a refused start is stopped.
 */
import type { Client } from "@modelcontextprotocol/client"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { afterAll, describe, expect, it } from "vitest"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { connectMcp, errorTextOf } from "../support/daemon.ts"
import { type Fleet, type FleetReplica, startFleet } from "../support/fleet.ts"
import { usePostgres } from "../support/postgres.ts"
import { runProcess } from "../support/runProcess.ts"
import { sleep } from "../support/poll.ts"

type Json = Record<string, any>
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")
const BIN = path.join(REPO, "bin", "agent-bridge.js")
const CAP = 3
const structured = (r: object): Json => (r as { structuredContent: Json }).structuredContent

const cli = (replica: FleetReplica, ...args: Array<string>) =>
  runProcess(globalThis.process.execPath, [BIN, ...args, "--config", replica.configFile], { cwd: REPO, timeoutMs: 300_000 })

describe("the per-client cap and the idempotent single flight over three replicas", () => {
  const pgServer = usePostgres()
  let fleet: Fleet | undefined
  let sim: SimulatorAsync | undefined
  let db: pg.Client | undefined
  const clients: Array<Client> = []

  let starting: Promise<Fleet> | undefined
  /** One fleet for the file, started by the first test that needs it (a failed start fails the rest at once). */
  const setUp = (ctx: { readonly skip: (note?: string) => void }) => (starting ??= startOnce(ctx))
  const startOnce = async (ctx: { readonly skip: (note?: string) => void }) => {
    const storageUrl = await pgServer.database(ctx)
    sim = await startSimulatorAsync({ generation: "new", maxConcurrentRuns: 100 })
    fleet = await startFleet({ storageUrl, replicas: 3, sim, config: { bridge: { max_concurrent_runs_per_client: CAP } } })
    db = new pg.Client({ connectionString: storageUrl })
    await db.connect()
    return fleet
  }
  /** A client of its own (the cap is per client), its key from the CLI, connected through nginx. */
  const clientNamed = async (f: Fleet, name: string) => {
    const added = await cli(f.replicas[0]!, "client", "add", name, "--scope", "agents")
    expect(added.status, added.stderr).toBe(0)
    const key = /Key \(shown once, store it now\): (\S+)/.exec(added.stdout)![1]!
    const c = await connectMcp(f.url(), key, "agents", "modern")
    clients.push(c)
    return c
  }
  const unfinished = async (client: string) =>
    Number((await db!.query<{ n: string }>("SELECT count(*) AS n FROM runs WHERE client = $1 AND ended_at IS NULL", [client])).rows[0]!.n)

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined)
    await db?.end().catch(() => undefined)
    await fleet?.stop()
    await sim?.close()
  }, 60_000)

  it("20 concurrent retries of one idempotent start through nginx, one run short of the cap: one run, no too_many_runs", async (ctx) => {
    const f = await setUp(ctx)
    const c = await clientNamed(f, "retrier")
    for (let i = 0; i < CAP - 1; i++) {
      const r = await c.callTool({ name: "agent_run", arguments: { agent: "hermes", input: `[sim:slow=300s] filler ${i}` } })
      expect(errorTextOf(r)).toBe("")
    }
    const before = f.nginx().passed().length
    const answers = await Promise.all(Array.from({ length: 20 }, () =>
      c.callTool({ name: "agent_run", arguments: { agent: "hermes", input: "[sim:slow=300s] the one", idempotency_key: "retry-burst-1" } }, { timeout: 300_000 })))
    const errors = answers.map(errorTextOf).filter((t) => t !== "")
    const ids = new Set(answers.filter((a) => errorTextOf(a) === "").map((a) => structured(a)["run_id"]))
    const spread = new Set(f.nginx().passed().slice(before).filter((r) => r.method === "POST").flatMap((r) => r.upstreams))
    process.stderr.write(`[replica-caps] 20 retries over ${spread.size} replicas: ${ids.size} run id(s), ${errors.length} error(s) ${JSON.stringify(errors.slice(0, 2))}\n`)
    expect(errors).toEqual([])
    expect(ids.size).toBe(1)
    expect(spread.size).toBe(3)
    const keyed = await db!.query("SELECT run_id FROM runs WHERE client = 'retrier' AND idempotency_key IS NOT NULL")
    expect(keyed.rows.map((r) => r.run_id)).toEqual([...ids])
    expect(await unfinished("retrier")).toBe(CAP)
  }, 600_000)

  it("12 concurrent distinct starts through nginx never exceed the cap of 3", async (ctx) => {
    const f = await setUp(ctx)
    const c = await clientNamed(f, "crowd")
    const hermesBefore = (await sim!.requests()).filter((r) => r.method === "POST" && r.path === "/v1/runs").length
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) =>
      c.callTool({ name: "agent_run", arguments: { agent: "hermes", input: `[sim:slow=300s] crowd ${i}` } }, { timeout: 300_000 })))
    const texts = answers.map(errorTextOf)
    const started = texts.filter((t) => t === "").length
    const refused = texts.filter((t) => t.includes("bridge.too_many_runs")).length
    const hermesStarts = (await sim!.requests()).filter((r) => r.method === "POST" && r.path === "/v1/runs").length - hermesBefore
    process.stderr.write(`[replica-caps] 12 distinct starts: ${started} started, ${refused} too_many_runs; Hermes saw ${hermesStarts} starts\n`)
    expect(started + refused).toBe(12)
    expect(started).toBeGreaterThanOrEqual(1)
    expect(started).toBeLessThanOrEqual(CAP)
    expect(await unfinished("crowd")).toBe(started)
    // Every Hermes run a refused start began was stopped: only the recorded ones go on.
    const recorded = new Set((await db!.query<{ hermes_run_id: string }>("SELECT hermes_run_id FROM runs WHERE client = 'crowd'")).rows.map((r) => r.hermes_run_id))
    let live: Array<string> = []
    for (let i = 0; i < 100; i++) {
      live = [...sim!.handle.state.runs.values()].filter((r: any) => r.status === "running" && !recorded.has(r.id) && String(r.input ?? "").includes("crowd")).map((r: any) => r.id)
      if (live.length === 0) break
      await sleep(100)
    }
    expect(live).toEqual([])
  }, 600_000)
})
