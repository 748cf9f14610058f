/**
 * Crash: the real daemon process is SIGKILLed at random moments under 200 live runs from 20 clients
 * and started again over the same data directory and port, while a simulated Hermes (newer
 * generation, in this process) keeps the runs going. Afterwards every run is accounted for (ended,
 * after being followed again), each run's events run contiguously from seq 1 (or are the newest 500),
 * nothing is duplicated (the output equals what Hermes produced, exactly once), and every repeated
 * idempotent start answered the original run id.
 */
import Database from "better-sqlite3"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { type DaemonProcess, spawnDaemon } from "../support/daemonProcess.ts"
import { freeLoopbackPort } from "../support/freePort.ts"
import { admitClients, type BridgeFiles, writeBridgeConfig } from "./support/bridgeSetup.ts"
import { churn, finish, makeWorkload, type RunKind, startAll, steerAll, type Workload } from "./support/crashWorkload.ts"
import { ResilientMcp } from "./support/mcpClient.ts"
import { hermesRunsByInput, verifyRun } from "./support/crashChecks.ts"
import { sleep } from "../support/poll.ts"

const CLIENTS = 20
const RUNS_PER_CLIENT = 10
/**
 * Five runs that wait for an answer (live through every kill), four or five that stream; client 0
 * also steers one past the 500-event cap.
 */
const kindsOf = (client: number): ReadonlyArray<RunKind> => [
  "clarify", "clarify", "clarify", "clarify", "clarify", "stream", "stream", "stream", "stream", client === 0 ? "steered" : "stream"
]
const GATED = CLIENTS * 5
const RUNS = CLIENTS * RUNS_PER_CLIENT
/** One kill while the starts are still coming in, then the rest with every run started. */
const KILLS_DURING_STARTS = 1
const KILLS_AFTER_STARTS = 5
/** A ceiling for a slow, shared machine; a quiet one needs a fraction of it. */
const TEST_BUDGET_MS = 600_000

/** Work left running while the kills go on: awaited later, so a failure is reported there, not as unhandled. */
const inFlight = <A>(p: Promise<A>): Promise<A> => {
  p.catch(() => undefined)
  return p
}
const randomBetween = (lo: number, hi: number) => Math.round(lo + Math.random() * (hi - lo))

describe("crash: SIGKILL under load", () => {
  let sim: SimulatorAsync
  let files: BridgeFiles
  let port: number
  let daemon: DaemonProcess | undefined

  beforeAll(async () => {
    sim = await startSimulatorAsync({ generation: "new", maxConcurrentRuns: 1000, clarifyTimeoutMs: 900_000 })
    port = await freeLoopbackPort()
    files = writeBridgeConfig({
      bridge: { port, max_concurrent_runs_per_client: RUNS_PER_CLIENT },
      hermes: { url: sim.url, key: sim.profile("default").key, timeout_ms: 15_000, max_concurrent_runs: 1000 },
      memory: { enabled: false }
    }, "agent-bridge-crash-")
  })

  afterAll(async () => {
    await daemon?.kill("SIGKILL")
    await sim?.close()
    files?.remove()
  })

  it(`keeps all ${RUNS} runs of ${CLIENTS} clients through ${KILLS_DURING_STARTS + KILLS_AFTER_STARTS} SIGKILLs`, async () => {
    const deadline = Date.now() + TEST_BUDGET_MS - 30_000
    const names = Array.from({ length: CLIENTS }, (_, i) => `crash-${i}`)
    const { keys, adminKey } = await admitClients(files.config, names)
    // A daemon that exits when the test did not kill it is a finding in itself: report it with its
    // own last output rather than as a storm of refused connections later.
    const unexpectedExits: Array<string> = []
    const start = async () => {
      const d = await spawnDaemon({ configFile: files.configFile, port, readyTimeoutMs: 120_000 })
      void d.exited.then((e) => {
        if (d.killedByCaller()) return
        unexpectedExits.push(`pid ${d.pid} exited by itself (${e.signal ?? `code ${e.code}`}):\n${d.output().slice(-4000)}`)
        console.log(unexpectedExits.at(-1))
      })
      return d
    }
    // A progress trace, so a slow or failing run shows where the time went.
    const testStart = Date.now()
    const log = (m: string) => console.log(`[${((Date.now() - testStart) / 1000).toFixed(1)}s] ${m}`)
    daemon = await start()
    log("daemon ready")
    const url = daemon.url

    const clients = names.map((name, i) => ({ mcp: new ResilientMcp(url, keys.get(name)!), work: makeWorkload(i, name, kindsOf(i)) }))
    let killsOver = false
    const starts = clients.map((c) => inFlight(startAll(c.mcp, c.work, deadline)))
    const workers = clients.map((c, i) => inFlight((async () => {
      await starts[i]
      await Promise.all([churn(c.mcp, c.work, () => killsOver, deadline), steerAll(c.mcp, c.work, deadline)])
      await finish(c.mcp, c.work, deadline)
    })()))

    // The kills: random moments after each start-up; the first lands among the starts.
    const kills: Array<{ readonly afterMs: number; readonly liveInHermes: number; readonly restartMs: number }> = []
    const killOnce = async (afterMs: number) => {
      await sleep(afterMs)
      const liveInHermes = sim.handle.state.liveRuns()
      await daemon!.kill("SIGKILL")
      const t0 = Date.now()
      daemon = await start()
      kills.push({ afterMs, liveInHermes, restartMs: Date.now() - t0 })
      log(`kill ${kills.length}: live ${liveInHermes}, restart ${Date.now() - t0} ms`)
    }
    for (let k = 0; k < KILLS_DURING_STARTS; k++) await killOnce(randomBetween(200, 1500))
    await Promise.all(starts)
    log("starts done")
    for (let k = 0; k < KILLS_AFTER_STARTS; k++) await killOnce(randomBetween(300, 2500))
    killsOver = true
    await Promise.all(workers)
    log("workers done")

    // Read every run back and compare it with what Hermes produced.
    const admin = new ResilientMcp(url, adminKey)
    const problems: Array<string> = clients.flatMap((c) => c.work.problems)
    const hermes = hermesRunsByInput(sim.handle.state.runs.values())
    let capped = 0
    let eventsChecked = 0
    const runIds = new Set<string>()
    for (const c of clients) {
      for (const r of c.work.runs) {
        const verdict = await verifyRun(c.mcp, r, hermes, deadline)
        problems.push(...verdict.problems)
        eventsChecked += verdict.events
        if (verdict.capped) capped++
        if (r.runId !== null) runIds.add(r.runId)
      }
    }
    const listed = await admin.call("agent_runs_list", { limit: 200 }, { deadline })
    const listedIds = new Set(listed.ok ? (listed.value.runs as ReadonlyArray<{ run_id: string }>).map((x) => x.run_id) : [])
    await Promise.all([...clients.map((c) => c.mcp.close()), admin.close()])

    // A clean stop after all that, then the database itself: exactly these runs, all ended.
    const cur = daemon!
    await cur.kill("SIGTERM")
    const exit = await cur.exited
    const db = new Database(path.join(files.config.dataDir, "bridge.db"), { readonly: true })
    const rows = db.prepare("SELECT run_id, status FROM runs").all() as ReadonlyArray<{ run_id: string; status: string }>
    const storedEvents = (db.prepare("SELECT COUNT(*) AS n FROM run_events").get() as { n: number }).n
    db.close()

    const sum = (f: (w: Workload) => number) => clients.reduce((n, c) => n + f(c.work), 0)
    const summary = {
      runs: RUNS,
      clients: CLIENTS,
      kills: kills.length,
      liveInHermesAtEachKill: kills.map((k) => k.liveInHermes).join(" "),
      killDelaysMs: kills.map((k) => k.afterMs).join(" "),
      restartToReadyMs: kills.map((k) => k.restartMs).join(" "),
      startsAnsweredAfterARetry: sum((w) => w.counts.startsRetried),
      idempotentReplaysDuringKills: sum((w) => w.counts.replays),
      finalReplays: runIds.size,
      followReads: sum((w) => w.counts.follows),
      statusReads: sum((w) => w.counts.statuses),
      waits: sum((w) => w.counts.waits),
      clarificationsAnswered: sum((w) => w.counts.answers),
      steers: sum((w) => w.counts.steers),
      steersWhileQueued: sum((w) => w.counts.queuedSteers),
      lostCallsRetried: clients.reduce((n, c) => n + c.mcp.stats.lostCalls, 0),
      mcpSessionsOpened: clients.reduce((n, c) => n + c.mcp.stats.sessions, 0),
      runsOver500Events: capped,
      capGapsWhileFollowing: clients.reduce((n, c) => n + c.work.runs.reduce((m, r) => m + r.capGaps, 0), 0),
      eventsChecked,
      eventsInDatabase: storedEvents,
      problems: problems.length
    }
    console.log(`crash test figures:\n${Object.entries(summary).map(([k, v]) => `  ${k}: ${v}`).join("\n")}`)

    expect(unexpectedExits).toEqual([])
    expect(problems.slice(0, 20)).toEqual([])
    expect(kills.length).toBeGreaterThanOrEqual(5)
    // Every kill after the starts hit at least the runs that cannot end by themselves.
    expect(kills.slice(KILLS_DURING_STARTS).every((k) => k.liveInHermes >= GATED)).toBe(true)
    expect(runIds.size).toBe(RUNS)
    expect(listedIds).toEqual(runIds)
    expect(rows.length).toBe(RUNS)
    expect(rows.filter((r) => r.status === "completed").length).toBe(RUNS - 1)
    expect(rows.filter((r) => r.status === "cancelled").length).toBe(1)
    expect(capped).toBe(1)
    expect(new Set(rows.map((r) => r.run_id))).toEqual(runIds)
    expect(exit.code).toBe(0)
  }, TEST_BUDGET_MS)
})
