/**
 * Every run tool from every replica (issue 25 item 4): three daemons on one PostgreSQL behind nginx
 * (`startFleet`), one Hermes simulator. A run is followed by one replica (the owner of its shard);
 * the other replicas must serve everything about it as if it were theirs:
 *
 * - a wait on another replica wakes when the follower records an event (the change feed: LISTEN /
 *   NOTIFY), within 1.5 s per wake under load (the aim is 250 ms; each delay and the median are
 *   printed), and sends progress notifications meanwhile;
 * - a clarification's answer, a steer and a stop sent to another replica reach the followed run;
 * - an approval decided with another replica's configuration (the CLI) reaches Hermes exactly once;
 * - a key revoked through one replica's configuration is refused by another within 3 s (printed),
 *   and that replica's open waits of the key end with `auth.forbidden`.
 *
 * The per-client cap and the idempotent single flight under concurrent starts spread over the
 * replicas are test/runs/replicaCaps.e2e.test.ts (a fleet of its own, with a small cap).
 */
import type { Client } from "@modelcontextprotocol/client"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { afterAll, describe, expect, it } from "vitest"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { connectMcp, errorTextOf } from "../support/daemon.ts"
import { type Fleet, type FleetReplica, startFleet } from "../support/fleet.ts"
import { modernRequest } from "../support/mcpWire.ts"
import { usePostgres } from "../support/postgres.ts"
import { runProcess } from "../support/runProcess.ts"
import { sleep } from "../support/poll.ts"

type Json = Record<string, any>
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")
const BIN = path.join(REPO, "bin", "agent-bridge.js")
const structured = (r: object): Json => (r as { structuredContent: Json }).structuredContent
const call = async (c: Client, name: string, args: Json, options?: Parameters<Client["callTool"]>[1]): Promise<Json> => {
  // The SDK's own request timeout (60 s) would cut a long wait on the loaded machine.
  const result = await c.callTool({ name, arguments: args }, { timeout: 600_000, ...options })
  expect(errorTextOf(result), `${name} answered an error`).toBe("")
  return structured(result)
}
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const load = () => os.loadavg()[0]!.toFixed(2)

/** The CLI as an operator runs it, with one replica's configuration (the shared database). */
const cli = (replica: FleetReplica, ...args: Array<string>) =>
  runProcess(globalThis.process.execPath, [BIN, ...args, "--config", replica.configFile], { cwd: REPO, timeoutMs: 300_000 })

/** The replica whose log says it follows `runId` (started or picked up), waited for up to 120 s (a loaded machine). */
const followerOf = async (fleet: Fleet, runId: string): Promise<FleetReplica> => {
  for (let i = 0; i < 1_200; i++) {
    const found = fleet.replicas.filter((r) => r.output().split("\n").some((l) => l.includes(runId) && (l.includes("run started") || l.includes("run picked up again"))))
    if (found.length === 1) return found[0]!
    expect(found.length).toBeLessThanOrEqual(1)
    await sleep(100)
  }
  throw new Error(`no replica follows ${runId}`)
}

describe("every run tool from every replica (three replicas behind nginx)", () => {
  const pgServer = usePostgres()
  let fleet: Fleet | undefined
  let sim: SimulatorAsync | undefined
  let storageUrl = ""
  const clients: Array<Client> = []
  const closers: Array<() => Promise<unknown>> = []

  let starting: Promise<Fleet> | undefined
  /** One fleet for the file, started by the first test that needs it (a failed start fails the rest at once). */
  const setUp = (ctx: { readonly skip: (note?: string) => void }) => (starting ??= startOnce(ctx))
  const startOnce = async (ctx: { readonly skip: (note?: string) => void }) => {
    storageUrl = await pgServer.database(ctx)
    sim = await startSimulatorAsync({ generation: "new", maxConcurrentRuns: 100 })
    fleet = await startFleet({ storageUrl, replicas: 3, sim })
    return fleet
  }
  const connect = async (url: string, key: string) => {
    const c = await connectMcp(url, key, "agents", "modern")
    clients.push(c)
    return c
  }
  /** A replica other than `not`. */
  const other = (f: Fleet, not: FleetReplica, skip: ReadonlyArray<FleetReplica> = []) => f.replicas.find((r) => r !== not && !skip.includes(r))!

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined)
    for (const c of closers) await c().catch(() => undefined)
    await fleet?.stop()
    await sim?.close()
  }, 60_000)

  it("a wait on another replica wakes within 1.5 s of each event the follower records, with progress", async (ctx) => {
    const f = await setUp(ctx)
    const viaNginx = await connect(f.url(), f.adminKey)
    const runId = (await call(viaNginx, "agent_run", { agent: "hermes", input: "[sim:deltas=8,slow=8s] wake me on each event" }))["run_id"] as string
    const follower = await followerOf(f, runId)
    const waiter = other(f, follower)
    // The commits as PostgreSQL announces them (the triggers' NOTIFY at commit), heard by the test itself.
    const listener = new pg.Client({ connectionString: storageUrl })
    await listener.connect()
    closers.push(() => listener.end())
    const commits: Array<number> = []
    listener.on("notification", (n) => {
      if (n.channel === "agent_bridge_runs" && (n.payload ?? "").endsWith(runId)) commits.push(Date.now())
    })
    await listener.query("LISTEN agent_bridge_runs")
    const onB = await connect(waiter.url, f.adminKey)
    const progress: Array<{ at: number; value: number }> = []
    const waited = await call(onB, "agent_run_wait", { run_id: runId, timeout_s: 90 }, {
      onprogress: (p) => void progress.push({ at: Date.now(), value: p.progress })
    })
    expect(waited["status"]).toBe("completed")
    expect(waited["timed_out"]).toBe(false)
    // Each commit after the wait began: the first progress notification after it is its wake.
    const start = progress[0]?.at ?? 0
    const delays = commits.filter((t) => t > start).flatMap((t) => {
      const woke = progress.find((p) => p.at >= t)
      return woke === undefined ? [] : [woke.at - t]
    })
    process.stderr.write(`[replica-tools] wait on ${waiter.name} (follower ${follower.name}): ${commits.length} commits, ${progress.length} progress notifications; wake delays ${JSON.stringify(delays)} ms, median ${delays.length > 0 ? median(delays) : "-"} ms (load ${load()})\n`)
    expect(progress.length).toBeGreaterThanOrEqual(4)
    expect(delays.length).toBeGreaterThanOrEqual(4)
    for (const d of delays) expect(d).toBeLessThanOrEqual(1_500)
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.value).toBeGreaterThan(progress[i - 1]!.value)
  }, 600_000)

  it("a clarification's answer, a steer and a stop sent to another replica reach the run the follower follows", async (ctx) => {
    const f = await setUp(ctx)
    const viaNginx = await connect(f.url(), f.adminKey)

    // Clarification: the wait on B ends at the question, B answers, the follower records the rest.
    const asking = (await call(viaNginx, "agent_run", { agent: "hermes", input: "[sim:clarify] deploy it" }))["run_id"] as string
    const askFollower = await followerOf(f, asking)
    const onB = await connect(other(f, askFollower).url, f.adminKey)
    const asked = await call(onB, "agent_run_wait", { run_id: asking, timeout_s: 60 })
    expect(asked["status"]).toBe("waiting_for_clarification")
    const requestId = asked["pending"]["request_id"] as string
    const afterAnswer = await call(onB, "agent_run_answer", { run_id: asking, request_id: requestId, answer: "staging" })
    const answered = await call(onB, "agent_run_wait", { run_id: asking, timeout_s: 60 })
    const askTrail = async () => JSON.stringify({
      answer: afterAnswer["status"],
      events: ((await call(onB, "agent_run_events", { run_id: asking, limit: 200 }))["events"] as Array<Json>).map((e) => [e["seq"], e["type"], e["data"]["request_id"], e["data"]["via"]])
    })
    expect(answered["status"], await askTrail()).toBe("completed")
    expect(answered["output"]).toContain("You chose: staging.")
    const askEvents = (await call(onB, "agent_run_events", { run_id: asking, limit: 200 }))["events"] as Array<Json>
    // The client's answer, once (Hermes's echo may be stored before it when the follower is another
    // replica: the answer is then kept after it while the run is live, control.ts).
    const answers = askEvents.filter((e) => e["type"] === "clarify.answered" && e["data"]["via"] === "client")
    expect(answers, await askTrail()).toHaveLength(1)
    expect(askEvents.filter((e) => e["type"] === "clarify.answered").length, await askTrail()).toBeLessThanOrEqual(2)
    expect(answers[0]!["data"]["answer"]).toBe("staging")

    // Steer through B: Hermes takes it, the follower records run.steered, the answer carries it.
    const steered = (await call(viaNginx, "agent_run", { agent: "hermes", input: "[sim:deltas=10,slow=5s] count on" }))["run_id"] as string
    const steerFollower = await followerOf(f, steered)
    const onSteerB = await connect(other(f, steerFollower).url, f.adminKey)
    await sleep(500)
    await call(onSteerB, "agent_run_steer", { run_id: steered, input: "mention the blue door" })
    const afterSteer = await call(onSteerB, "agent_run_wait", { run_id: steered, timeout_s: 60 })
    expect(afterSteer["status"]).toBe("completed")
    expect(afterSteer["output"]).toContain("Steered: mention the blue door")
    const steerEvents = (await call(onSteerB, "agent_run_events", { run_id: steered, limit: 200 }))["events"] as Array<Json>
    expect(steerEvents.filter((e) => e["type"] === "run.steered")).toHaveLength(1)

    // Stop through B: the run ends cancelled, with B's run.stopping recorded once, before the end,
    // though the follower (A) may store Hermes's run.cancelled before B's own record (B stored
    // what it asked first: test/runs/runs-stopRace.test.ts, "a stop through another process").
    const stopped = (await call(viaNginx, "agent_run", { agent: "hermes", input: "[sim:deltas=20,slow=30s] go on and on" }))["run_id"] as string
    const stopFollower = await followerOf(f, stopped)
    const onStopB = await connect(other(f, stopFollower).url, f.adminKey)
    await sleep(500)
    const stopAnswer = await call(onStopB, "agent_run_stop", { run_id: stopped })
    expect(["stopping", "cancelled"]).toContain(stopAnswer["status"])
    const afterStop = await call(onStopB, "agent_run_wait", { run_id: stopped, timeout_s: 60 })
    expect(afterStop["status"]).toBe("cancelled")
    const stopEvents = (await call(onStopB, "agent_run_events", { run_id: stopped, limit: 200 }))["events"] as Array<Json>
    const stopTypes = stopEvents.map((e) => e["type"] as string)
    expect(stopTypes.filter((t) => t === "run.stopping"), JSON.stringify(stopTypes)).toHaveLength(1)
    expect(stopTypes.filter((t) => t === "run.cancelled")).toHaveLength(1)
    expect(stopTypes.indexOf("run.stopping")).toBeLessThan(stopTypes.indexOf("run.cancelled"))
  }, 600_000)

  it("an approval decided with another replica's configuration reaches Hermes exactly once", async (ctx) => {
    const f = await setUp(ctx)
    const viaNginx = await connect(f.url(), f.adminKey)
    const runId = (await call(viaNginx, "agent_run", { agent: "hermes", input: "[sim:approval] clean the build" }))["run_id"] as string
    const follower = await followerOf(f, runId)
    const [b, c] = [other(f, follower), other(f, follower, [other(f, follower)])]
    // The follower opens the inbox row before it commits the approval's event.
    for (let i = 0; i < 300; i++) {
      if ((await call(viaNginx, "agent_run_status", { run_id: runId }))["status"] === "waiting_for_approval") break
      await sleep(100)
    }
    const listed = await cli(b, "inbox", "list", "--json")
    expect(listed.status, listed.stderr).toBe(0)
    const row = (JSON.parse(listed.stdout) as { rows: Array<Json> }).rows.find((r) => r["run_id"] === runId)
    expect(row, listed.stdout).toBeDefined()
    // Two operators at once, each with another replica's configuration: one decision reaches Hermes.
    const [first, second] = await Promise.all([cli(b, "inbox", "approve", row!["id"]), cli(c, "inbox", "approve", row!["id"])])
    expect([first.status, second.status].filter((s) => s === 0).length, `${first.stderr}\n${second.stderr}`).toBeGreaterThanOrEqual(1)
    const done = await call(viaNginx, "agent_run_wait", { run_id: runId, timeout_s: 60 })
    expect(done["status"]).toBe("completed")
    expect(done["output"]).toContain("after approval")
    await sleep(1_000)
    const approvals = (await sim!.requests()).filter((r) => r.method === "POST" && r.path.endsWith("/approval"))
    process.stderr.write(`[replica-tools] approval: CLI exits ${first.status}/${second.status}; Hermes received ${approvals.length} approval request(s)\n`)
    expect(approvals).toHaveLength(1)
  }, 600_000)

  it("a key revoked through one replica's configuration is refused by another within 3 s, and its open waits there end with auth.forbidden", async (ctx) => {
    const f = await setUp(ctx)
    const [a, b] = [f.replicas[0]!, f.replicas[1]!]
    const added = await cli(a, "client", "add", "revoked-soon", "--scope", "agents")
    expect(added.status, added.stderr).toBe(0)
    const key = /Key \(shown once, store it now\): (\S+)/.exec(added.stdout)![1]!
    const onB = await connect(b.url, key)
    // Longer than the CLI's two starts on the loaded machine: the wait is still open at the revoke.
    const runId = (await call(onB, "agent_run", { agent: "hermes", input: "[sim:deltas=20,slow=300s] long enough" }))["run_id"] as string
    const waiting = onB.callTool({ name: "agent_run_wait", arguments: { run_id: runId, timeout_s: 600 } }, { timeout: 900_000 })
    const ask = () => fetch(`${b.url}/mcp/agents/mcp`, modernRequest(key, 1, "tools/list")).then((r) => r.status)
    expect(await ask()).toBe(200)
    await sleep(500)
    // B is asked over and over from before the revoke (the CLI's start takes seconds under load), so
    // the first refusal is seen when it happens; the revoke's own time is the row's revoked_at.
    let refusedAt: number | undefined
    let waitEndedAt: number | undefined
    void waiting.finally(() => (waitEndedAt = Date.now()))
    let polling = true
    const poller = (async () => {
      for (let i = 0; polling && refusedAt === undefined && i < 20_000; i++) {
        if ((await ask()) === 403) refusedAt = Date.now()
        else await sleep(25)
      }
    })()
    const revoked = await cli(a, "client", "revoke", "revoked-soon")
    expect(revoked.status, revoked.stderr).toBe(0)
    for (let i = 0; i < 300 && (refusedAt === undefined || waitEndedAt === undefined); i++) await sleep(50)
    polling = false
    await poller
    const ended = await waiting
    const db = new pg.Client({ connectionString: storageUrl })
    await db.connect()
    const revokedAt = Number((await db.query<{ revoked_at: string }>("SELECT revoked_at FROM clients WHERE name = 'revoked-soon'")).rows[0]!.revoked_at)
    await db.end()
    const refusedMs = refusedAt === undefined ? undefined : refusedAt - revokedAt
    const endedMs = waitEndedAt === undefined ? undefined : waitEndedAt - revokedAt
    process.stderr.write(`[replica-tools] revoke through ${a.name}: refused by ${b.name} ${refusedMs} ms after the revoke's commit; its open wait answered ${endedMs} ms after it (load ${load()})\n`)
    expect(refusedMs).toBeDefined()
    expect(refusedMs!).toBeLessThanOrEqual(3_000)
    expect(endedMs!).toBeLessThanOrEqual(3_000)
    expect(errorTextOf(ended)).toMatch(/auth\.forbidden/)
  }, 600_000)
})
