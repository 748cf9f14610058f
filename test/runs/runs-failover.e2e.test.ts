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
 *
 * Then a third replica joins (the shards, PostgreSQL advisory locks, spread over both live ones) and
 * the follower of a new batch's first run gets SIGTERM: it exits 0 within a few seconds, having
 * released its shards, and the other replica goes on with its runs at once (no lock expiry waited),
 * each completed, none losing an event.
 *
 * Runs queued for Hermes's capacity (issue 38) survive a SIGKILL of the replica they were queued on:
 * the surviving replica admits each of them, Hermes gets one start per run and never more than its
 * cap at once, and every run completes.
 */
import type { Client } from "@modelcontextprotocol/client"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import pg from "pg"
import * as YAML from "yaml"
import { afterAll, describe, expect, it } from "vitest"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { CLUSTER_TIMING, EVENTS_PAGE_MAX } from "../../src/domain/limits.ts"
import { connectMcp, tempDir } from "../support/daemon.ts"
import { type DaemonProcess, spawnDaemon } from "../support/daemonProcess.ts"
import { freeLoopbackPort } from "../support/freePort.ts"
import { usePostgres } from "../support/postgres.ts"
import { sleep } from "../support/poll.ts"

type Json = Record<string, any>
const structured = (r: object): Json => (r as { structuredContent: Json }).structuredContent

const RUNS = 4
const ADMIN_KEY = "failover-admin-key-0123456789abcdef"
/** The replicas' shared `cluster.secret`. */
const CLUSTER_SECRET = "failover-cluster-secret-0123456789abcdef"
/** What the issue asks: another replica follows a dead one's runs within this. */
const FAILOVER_MS = 10_000
/**
 * A run reaches the replica that owns its shard as a notification, at once; the cluster's poll of
 * its message table (`CLUSTER_TIMING.messagePollMs`, 10 s) only catches a lost one, so a run left
 * to that poll would miss this bound.
 */
const FOLLOWED_MS = 5_000

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

describe("replicas on one PostgreSQL: one follower per run, failover on SIGKILL, handover on SIGTERM", () => {
  const pgServer = usePostgres()
  const cleanups: Array<() => Promise<unknown>> = []
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined)
  }, 60_000)

  it("one follower per run while replicas live; a dead one's runs move within 10 s, a stopped one's at once", async (ctx) => {
    const url = await pgServer.database(ctx)
    const sim: SimulatorAsync = await startSimulatorAsync({ generation: "new" })
    cleanups.push(() => sim.close())
    const db = new pg.Client({ connectionString: url })
    const spawnReplica = async (name: string): Promise<Replica> => {
      const dir = tempDir()
      const port = await freeLoopbackPort()
      const configFile = path.join(dir, "agent-bridge.yaml")
      fs.writeFileSync(configFile, YAML.stringify({
        bridge: { port, data_dir: path.join(dir, "data"), admin_key: ADMIN_KEY },
        hermes: { url: sim.url, key: sim.profiles[0]!.key },
        storage: { url },
        cluster: { port: await freeLoopbackPort(), secret: CLUSTER_SECRET }
      }))
      const daemon = await spawnDaemon({ configFile, port, readyTimeoutMs: 120_000 })
      cleanups.push(() => daemon.kill("SIGKILL"))
      const client = await connectMcp(daemon.url, ADMIN_KEY)
      cleanups.push(() => client.close())
      return { name, process: daemon, client }
    }

    const startRuns = async (via: Replica, tag: string): Promise<Array<string>> => {
      const ids: Array<string> = []
      for (let i = 0; i < RUNS; i++) {
        const started = await via.client.callTool({ name: "agent_run", arguments: { agent: "hermes", input: `[sim:deltas=80,slow=20s] ${tag} ${i}` } })
        ids.push(structured(started)["run_id"])
      }
      return ids
    }
    /** Hermes's open event streams per run (the simulator's subscribers). */
    const streamsOpen = async (runIds: ReadonlyArray<string>) => {
      const rows = (await db.query<{ run_id: string; hermes_run_id: string }>("SELECT run_id, hermes_run_id FROM runs")).rows
      const hermesOf = new Map(rows.map((r) => [r.run_id, r.hermes_run_id]))
      return Promise.all(runIds.map(async (id) => (await sim.findRun(hermesOf.get(id)!))?.subscribers.size ?? 0))
    }
    /** Each run followed by exactly one of `live` within `FOLLOWED_MS`: one stream open at every look for 3 s, one replica's log. */
    const exactlyOneFollower = async (runIds: ReadonlyArray<string>, live: ReadonlyArray<Replica>) => {
      expect(FOLLOWED_MS).toBeLessThan(CLUSTER_TIMING.messagePollMs)
      const deadline = Date.now() + FOLLOWED_MS
      let open = await streamsOpen(runIds)
      while (open.some((n) => n === 0) && Date.now() < deadline) {
        await sleep(100)
        open = await streamsOpen(runIds)
      }
      expect(open).toEqual(runIds.map(() => 1))
      for (let i = 0; i < 15; i++) {
        expect(await streamsOpen(runIds)).toEqual(runIds.map(() => 1))
        await sleep(200)
      }
      const owners = live.map((r) => followedIn(r.process.output(), runIds))
      for (const id of runIds) expect(owners.filter((o) => o.has(id))).toHaveLength(1)
      return owners
    }
    /** How long after `since` each run's events move on in the ledger again (read through `via`). */
    const resumedAfter = async (via: Replica, runIds: ReadonlySet<string>, since: number) => {
      // Read after the stop (a commit in flight then may still land): what was stored by then.
      await sleep(300)
      const before = new Map<string, number>()
      for (const id of runIds) before.set(id, await lastSeq(via.client, id))
      const after = new Map<string, number>()
      while (after.size < runIds.size && Date.now() - since < FAILOVER_MS + 5_000) {
        for (const id of runIds) {
          if (!after.has(id) && (await lastSeq(via.client, id)) > before.get(id)!) after.set(id, Date.now() - since)
        }
        await sleep(100)
      }
      expect(after.size).toBe(runIds.size)
      return [...after.values()]
    }
    /** Every run completed, its events from seq 1 with no gap or repeat, its output its events' text. */
    const allCompleted = async (via: Replica, runIds: ReadonlyArray<string>) => {
      for (const id of runIds) {
        const waited = structured(await via.client.callTool({ name: "agent_run_wait", arguments: { run_id: id, timeout_s: 90 } }))
        expect(waited["status"]).toBe("completed")
        const status = structured(await via.client.callTool({ name: "agent_run_status", arguments: { run_id: id } }))
        const events = await allEvents(via.client, id)
        expect(events.map((e) => e["seq"])).toEqual(events.map((_, i) => i + 1))
        expect(events.filter((e) => e["type"] === "run.completed")).toHaveLength(1)
        const told = events.filter((e) => e["type"] === "message.text").map((e) => e["data"]["text"]).join("")
        expect(told.length).toBeGreaterThan(0)
        expect(status["output"]).toBe(told)
      }
      // The runs ended: no stream left open on Hermes.
      expect(await streamsOpen(runIds)).toEqual(runIds.map(() => 0))
    }
    /** The backends holding the cluster's shard locks (advisory locks 1000001..), once all are held. */
    const shardHolders = async (count: number) => {
      let holders: Array<number> = []
      for (let i = 0; i < 100; i++) {
        const rows = (await db.query<{ pid: number; n: string }>(
          "SELECT pid, count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid BETWEEN 1000001 AND 1000999 GROUP BY pid"
        )).rows
        holders = rows.map((r) => Number(r.n))
        if (holders.length === count && holders.reduce((x, y) => x + y, 0) === CLUSTER_TIMING.shards) break
        await sleep(200)
      }
      return holders
    }

    // At once, on a new database: migrations and the cluster's tables under one lock.
    const [a, b] = await Promise.all([spawnReplica("A"), spawnReplica("B")])
    await db.connect()
    cleanups.push(() => db.end())
    expect(await shardHolders(2)).toHaveLength(2)

    const first = await startRuns(a, "first")
    const [byA] = await exactlyOneFollower(first, [a, b])

    // SIGKILL the replica that follows the first run; the other one takes its runs.
    const [victim, survivor] = byA!.has(first[0]!) ? [a, b] : [b, a]
    const moved = followedIn(victim.process.output(), first)
    await victim.process.kill("SIGKILL")
    const failover = await resumedAfter(survivor, moved, Date.now())
    process.stderr.write(`[failover] SIGKILL: ${moved.size} run(s) moved from ${victim.name}; resumed after ${JSON.stringify(failover)} ms\n`)
    for (const ms of failover) expect(ms).toBeLessThanOrEqual(FAILOVER_MS)
    expect(followedIn(survivor.process.output(), first)).toEqual(new Set(first))
    await allCompleted(survivor, first)

    // A third replica joins; once the shards are spread over both, a new batch, then SIGTERM.
    const c = await spawnReplica("C")
    expect(await shardHolders(2)).toHaveLength(2)
    // The locks say the shards moved; the runners act on it a moment later (their assignments
    // refresh, C marking its shards taken, the first connection to C). A run whose notification
    // falls in that moment is found by the message poll instead (seen once, 2026-12-04: three of
    // four runs unfollowed after 5 s, just after C took its shards; which step it was is not
    // known). The bound here is for a cluster at rest, so the batch starts two refreshes later.
    await sleep(2 * CLUSTER_TIMING.assignmentsRefreshMs)
    const second = await startRuns(survivor, "second")
    const [bySurvivor] = await exactlyOneFollower(second, [survivor, c])
    const [stopped, staying] = bySurvivor!.has(second[0]!) ? [survivor, c] : [c, survivor]
    const handed = followedIn(stopped.process.output(), second)
    const signalledAt = Date.now()
    await stopped.process.kill("SIGTERM")
    const exitMs = Date.now() - signalledAt
    expect((await stopped.process.exited).code).toBe(0)
    const handover = await resumedAfter(staying, handed, signalledAt)
    process.stderr.write(`[failover] SIGTERM: ${stopped.name} exited after ${exitMs} ms; ${handed.size} run(s) resumed after ${JSON.stringify(handover)} ms\n`)
    // Shards released on the way out: well under the lock expiry a dead replica's runs wait for.
    for (const ms of handover) expect(ms).toBeLessThan(CLUSTER_TIMING.lockExpirationMs + 1_000)
    expect(followedIn(staying.process.output(), second)).toEqual(new Set(second))
    await allCompleted(staying, second)
  }, 400_000)

  it("queued runs survive a SIGKILL of the replica they were queued on: each starts once at Hermes, never past its cap (issue 38)", async (ctx) => {
    const url = await pgServer.database(ctx)
    // Hermes capped at 2, and the bridge's capacity set to match (a simulator's cap alone is learned from 429s).
    const CAP = 2
    const QUEUED = 4
    const sim: SimulatorAsync = await startSimulatorAsync({ generation: "new", maxConcurrentRuns: CAP })
    cleanups.push(() => sim.close())
    const spawnReplica = async (name: string): Promise<Replica> => {
      const dir = tempDir()
      const port = await freeLoopbackPort()
      const configFile = path.join(dir, "agent-bridge.yaml")
      fs.writeFileSync(configFile, YAML.stringify({
        bridge: { port, data_dir: path.join(dir, "data"), admin_key: ADMIN_KEY },
        hermes: { url: sim.url, key: sim.profiles[0]!.key, max_concurrent_runs: CAP },
        storage: { url },
        cluster: { port: await freeLoopbackPort(), secret: CLUSTER_SECRET }
      }))
      const daemon = await spawnDaemon({ configFile, port, readyTimeoutMs: 120_000 })
      cleanups.push(() => daemon.kill("SIGKILL"))
      const client = await connectMcp(daemon.url, ADMIN_KEY)
      cleanups.push(() => client.close())
      return { name, process: daemon, client }
    }
    const [victim, survivor] = await Promise.all([spawnReplica("A"), spawnReplica("B")])

    // Through the replica about to die: CAP runs that hold Hermes's slots a while, then QUEUED more.
    const started: Array<Json> = []
    for (let i = 0; i < CAP + QUEUED; i++) {
      const input = i < CAP ? `[sim:deltas=20,slow=15s] holds slot ${i}` : `[sim:deltas=5,slow=1s] queued ${i}`
      started.push(structured(await victim.client.callTool({ name: "agent_run", arguments: { agent: "hermes", input } })))
    }
    expect(started.map((v) => v["status"])).toEqual([...Array(CAP).fill("running"), ...Array(QUEUED).fill("queued")])
    expect(started.slice(CAP).map((v) => v["queue_position"])).toEqual(Array.from({ length: QUEUED }, (_, i) => i + 1))
    const ids = started.map((v) => v["run_id"] as string)
    const queuedIds = ids.slice(CAP)
    await victim.process.kill("SIGKILL")
    // Nothing queued was admitted before the kill (the slots are held 15 s): the survivor admits them all.
    expect(followedIn(victim.process.output(), queuedIds)).toEqual(new Set())

    for (const id of ids) {
      const waited = structured(await survivor.client.callTool({ name: "agent_run_wait", arguments: { run_id: id, timeout_s: 120 } }))
      expect(waited["status"]).toBe("completed")
      const events = await allEvents(survivor.client, id)
      expect(events.map((e) => e["seq"])).toEqual(events.map((_, i) => i + 1))
      expect(events.filter((e) => e["type"] === "run.started")).toHaveLength(1)
      expect(events.filter((e) => e["type"] === "run.completed")).toHaveLength(1)
      if (queuedIds.includes(id)) expect(events[0]!["type"]).toBe("run.queued")
    }
    expect(followedIn(survivor.process.output(), queuedIds)).toEqual(new Set(queuedIds))
    // Hermes saw each run exactly once, and never more than its cap at a time.
    const inputs = [...sim.handle.state.runs.values()].map((r) => r.input)
    expect(inputs).toHaveLength(CAP + QUEUED)
    for (let i = 0; i < CAP + QUEUED; i++) expect(inputs.filter((x) => x.endsWith(` ${i}`))).toHaveLength(1)
    expect(sim.handle.state.peakLiveRuns).toBeLessThanOrEqual(CAP)
    // The simulator refuses past its cap (429), so its peak alone cannot show the bridge held back:
    // one start request per run shows no start was refused and retried, nor sent twice.
    const startRequests = sim.handle.state.requests.filter((r) => r.method === "POST" && /^\/v1\/runs\/?$/.test(r.path))
    expect(startRequests).toHaveLength(CAP + QUEUED)
    process.stderr.write(`[failover] queued SIGKILL: ${QUEUED} queued run(s) admitted by ${survivor.name}; Hermes's peak ${sim.handle.state.peakLiveRuns}\n`)
  }, 400_000)

  it("a cluster port in use: the daemon does not start, and names the cluster's address and key", async (ctx) => {
    const url = await pgServer.database(ctx)
    const taken = net.createServer()
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    cleanups.push(() => new Promise((resolve) => taken.close(resolve)))
    const clusterPort = (taken.address() as net.AddressInfo).port
    const dir = tempDir()
    const port = await freeLoopbackPort()
    const configFile = path.join(dir, "agent-bridge.yaml")
    fs.writeFileSync(configFile, YAML.stringify({
      bridge: { port, data_dir: path.join(dir, "data"), admin_key: ADMIN_KEY },
      storage: { url },
      cluster: { port: clusterPort, secret: CLUSTER_SECRET }
    }))
    const failed = await spawnDaemon({ configFile, port, readyTimeoutMs: 120_000 }).then(
      (d) => d.kill("SIGKILL").then(() => "started"),
      (e: Error) => e.message
    )
    expect(failed).toContain("exited during start-up (code 1)")
    expect(failed).toContain(`cannot listen for the other replicas on 127.0.0.1:${clusterPort}`)
    expect(failed).toContain("cluster.port")
  }, 180_000)
  it("no cluster.secret: the daemon does not start, and says which keys to set", async (ctx) => {
    const url = await pgServer.database(ctx)
    const dir = tempDir()
    const port = await freeLoopbackPort()
    const configFile = path.join(dir, "agent-bridge.yaml")
    fs.writeFileSync(configFile, YAML.stringify({
      bridge: { port, data_dir: path.join(dir, "data"), admin_key: ADMIN_KEY },
      storage: { url },
      cluster: { port: await freeLoopbackPort(), secret_file: path.join(dir, "no-such-file") }
    }))
    const failed = await spawnDaemon({ configFile, port, readyTimeoutMs: 120_000 }).then(
      (d) => d.kill("SIGKILL").then(() => "started"),
      (e: Error) => e.message
    )
    expect(failed).toContain("exited during start-up (code 1)")
    expect(failed).toContain(`cannot read cluster.secret_file ${path.join(dir, "no-such-file")}`)
    expect(failed).toContain("cluster.port: 0")
  }, 180_000)
})
