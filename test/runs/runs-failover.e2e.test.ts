/**
 * Two replicas on one PostgreSQL database (issue 25 items 2–3): two whole daemons (`agent-bridge
 * serve` processes, started at once on a new database: the cluster's tables are created under the
 * migration lock) in front of one simulator, their run followers shared through `@effect/cluster`.
 *
 * While both live, every run has exactly one follower: Hermes (the simulator) sees exactly one event
 * stream open per run, and exactly one replica's log says it follows the run. Then the replica that
 * follows the first run is SIGKILLed: within 10 s the other follows each of its runs (the run's
 * events move on in the ledger, read through the survivor's `agent_run_events`), every run completes,
 * its events run from seq 1 without a gap or a repeat, and its output is its events' text.
 */
import type { Client } from "@modelcontextprotocol/client"
import * as fs from "node:fs"
import * as path from "node:path"
import pg from "pg"
import * as YAML from "yaml"
import { afterAll, describe, expect, it } from "vitest"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { EVENTS_PAGE_MAX } from "../../src/domain/limits.ts"
import { connectMcp, tempDir } from "../support/daemon.ts"
import { type DaemonProcess, spawnDaemon } from "../support/daemonProcess.ts"
import { freeLoopbackPort } from "../support/freePort.ts"
import { usePostgres } from "../support/postgres.ts"

type Json = Record<string, any>
const structured = (r: object): Json => (r as { structuredContent: Json }).structuredContent
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const RUNS = 4
const ADMIN_KEY = "failover-admin-key-0123456789abcdef"
/** What the issue asks: another replica follows a dead one's runs within this. */
const FAILOVER_MS = 10_000

interface Replica {
  readonly name: string
  readonly process: DaemonProcess
  readonly client: Client
}

/** The run ids whose follow this replica's log reports (started or picked up again). */
const followedIn = (output: string, runIds: ReadonlyArray<string>): Set<string> => {
  const lines = output.split("\n").filter((l) => l.includes("run started") || l.includes("run picked up again"))
  return new Set(runIds.filter((id) => lines.some((l) => l.includes(id))))
}

const allEvents = async (client: Client, runId: string): Promise<Array<Json>> => {
  const events: Array<Json> = []
  for (let since = 0, round = 0; round < 50; round++) {
    const page = structured(await client.callTool({ name: "agent_run_events", arguments: { run_id: runId, since_seq: since, limit: EVENTS_PAGE_MAX } }))
    events.push(...page["events"])
    if (page["events"].length === 0) break
    since = page["events"].at(-1)["seq"]
  }
  return events
}

const lastSeq = async (client: Client, runId: string): Promise<number> =>
  structured(await client.callTool({ name: "agent_run_status", arguments: { run_id: runId } }))["last_seq"]

describe("two replicas on one PostgreSQL: one follower per run, failover on SIGKILL", () => {
  const pgServer = usePostgres()
  const cleanups: Array<() => Promise<unknown>> = []
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined)
  }, 60_000)

  it("exactly one follower per run while both live; the survivor takes the dead replica's runs within 10 s", async (ctx) => {
    const url = await pgServer.database(ctx)
    const sim: SimulatorAsync = await startSimulatorAsync({ generation: "new" })
    cleanups.push(() => sim.close())
    const spawnReplica = async (name: string): Promise<Replica> => {
      const dir = tempDir()
      const port = await freeLoopbackPort()
      const configFile = path.join(dir, "agent-bridge.yaml")
      fs.writeFileSync(configFile, YAML.stringify({
        bridge: { port, data_dir: path.join(dir, "data"), admin_key: ADMIN_KEY },
        hermes: { url: sim.url, key: sim.profiles[0]!.key },
        storage: { url },
        cluster: { port: await freeLoopbackPort() }
      }))
      const daemon = await spawnDaemon({ configFile, port, readyTimeoutMs: 120_000 })
      cleanups.push(() => daemon.kill("SIGKILL"))
      const client = await connectMcp(daemon.url, ADMIN_KEY)
      cleanups.push(() => client.close())
      return { name, process: daemon, client }
    }
    // At once, on a new database: migrations and the cluster's tables under one lock.
    const [a, b] = await Promise.all([spawnReplica("A"), spawnReplica("B")])

    const runIds: Array<string> = []
    for (let i = 0; i < RUNS; i++) {
      const started = await a.client.callTool({ name: "agent_run", arguments: { agent: "hermes", input: `[sim:deltas=80,slow=20s] task ${i}` } })
      runIds.push(structured(started)["run_id"])
    }
    const db = new pg.Client({ connectionString: url })
    await db.connect()
    cleanups.push(() => db.end())
    const rows = (await db.query<{ run_id: string; hermes_run_id: string }>("SELECT run_id, hermes_run_id FROM runs")).rows
    const hermesOf = new Map(rows.map((r) => [r.run_id, r.hermes_run_id]))
    const streamsOpen = async () =>
      Promise.all(runIds.map(async (id) => (await sim.findRun(hermesOf.get(id)!))?.subscribers.size ?? 0))

    // Every run followed (its stream open) within 10 s of its start, wherever its shard lives.
    let open = await streamsOpen()
    for (let i = 0; i < 100 && open.some((n) => n === 0); i++) {
      await sleep(100)
      open = await streamsOpen()
    }
    expect(open).toEqual(runIds.map(() => 1))
    // While both live: exactly one stream per run at every look, for 3 s.
    for (let i = 0; i < 15; i++) {
      expect(await streamsOpen()).toEqual(runIds.map(() => 1))
      await sleep(200)
    }
    // And exactly one replica says it follows each run.
    const byA = followedIn(a.process.output(), runIds)
    const byB = followedIn(b.process.output(), runIds)
    for (const id of runIds) expect([byA.has(id), byB.has(id)].filter(Boolean)).toHaveLength(1)

    // SIGKILL the replica that follows the first run; the other one takes its runs.
    const [victim, survivor, moved] = byA.has(runIds[0]!) ? [a, b, byA] : [b, a, byB]
    await victim.process.kill("SIGKILL")
    const killedAt = Date.now()
    // Read after the death (a commit in flight at the kill may still land): what it left stored.
    await sleep(300)
    const before = new Map<string, number>()
    for (const id of moved) before.set(id, await lastSeq(survivor.client, id))
    const resumedAfter = new Map<string, number>()
    while (resumedAfter.size < moved.size && Date.now() - killedAt < FAILOVER_MS + 5_000) {
      for (const id of moved) {
        if (!resumedAfter.has(id) && (await lastSeq(survivor.client, id)) > before.get(id)!) resumedAfter.set(id, Date.now() - killedAt)
      }
      await sleep(100)
    }
    process.stderr.write(`[failover] ${moved.size} run(s) moved from ${victim.name}; resumed after ${JSON.stringify([...resumedAfter.values()])} ms\n`)
    expect(resumedAfter.size).toBe(moved.size)
    for (const ms of resumedAfter.values()) expect(ms).toBeLessThanOrEqual(FAILOVER_MS)
    expect(followedIn(survivor.process.output(), runIds)).toEqual(new Set(runIds))

    for (const id of runIds) {
      const waited = structured(await survivor.client.callTool({ name: "agent_run_wait", arguments: { run_id: id, timeout_s: 90 } }))
      expect(waited["status"]).toBe("completed")
      const status = structured(await survivor.client.callTool({ name: "agent_run_status", arguments: { run_id: id } }))
      const events = await allEvents(survivor.client, id)
      expect(events.map((e) => e["seq"])).toEqual(events.map((_, i) => i + 1))
      expect(events.filter((e) => e["type"] === "run.completed")).toHaveLength(1)
      const told = events.filter((e) => e["type"] === "message.text").map((e) => e["data"]["text"]).join("")
      expect(told.length).toBeGreaterThan(0)
      expect(status["output"]).toBe(told)
    }
    // The run ended: no stream left open on Hermes.
    expect(await streamsOpen()).toEqual(runIds.map(() => 0))
  }, 300_000)
})
