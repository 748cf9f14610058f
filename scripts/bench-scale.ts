/**
 * `npm run bench:scale`: thousands of live runs on one box, measured (issue 41, item 3). Every
 * piece is a real process: the daemon (`node <bundle> serve`, the esbuild bundle users run), the
 * Hermes API servers (scripts/benchScaleSim.ts, one simulator each, one bridge profile each), and
 * on PostgreSQL a throwaway server and 3 replicas; this process only drives clients and reads /proc.
 *
 * The workload, at `--size full` (the default; `--size small` or BENCH_SCALE_SIZE=small for CI):
 * 10,000 live runs from 100 clients over 5 simulated Hermes servers: 9,000 parked (half on an
 * approval nobody answers, half in a long silent step, only keepalives on their streams) and
 * 1,000 streaming at any moment (each run 50 deltas of a 4 KiB answer over 20 s, started again
 * as it ends, for 60 s). Meanwhile `agent_run_status` is called on parked runs, 4 in flight.
 * Hermes caps in-flight runs at 10 per API server by default, which the simulator imitates: each
 * simulator's `maxConcurrentRuns` is raised to its share of the runs. The per-client cap
 * (`bridge.max_concurrent_runs_per_client`, default 4) is raised to fit 100 live runs per client, and
 * the bridge's capacity per profile (`hermes.max_concurrent_runs`) to its simulator's raised cap, so
 * that no run waits in the bridge's queue.
 *
 * Figures (each a ratio against a baseline of the same run, or against its goal):
 * - the bridge's own RSS per live run (its process's VmRSS, parked runs vs before any run; goal
 *   ≤ 64 KiB), the simulators' growth per run printed beside, never added;
 * - CPU per second while the runs are parked, vs the same bridge with no run;
 * - CPU per streamed event (the bridge's CPU over the streaming window, less what the parked runs
 *   cost per second anyway and the status calls' share, ÷ the frames the simulators published),
 *   beside the simulators' own CPU per frame; the status calls are paced (80 ms per call in flight)
 *   like a monitoring client's, and their CPU per call is measured before any run;
 * - ledger write rate: event rows stored per second vs frames published per second;
 * - p99 of `agent_run_status` meanwhile vs the same call before any run;
 * - lost events: every streamed run read back (events contiguous from 1, one terminal event, the
 *   text exactly the simulator's) and a sample of parked runs (contiguous, not ended); goal 0;
 * - on PostgreSQL with 3 replicas also commits per second (pg_stat_database.xact_commit, reads
 *   included; and the transactions that wrote, by the transaction ids assigned) and NOTIFY
 *   deliveries per second (a LISTEN client's count × the replicas listening), the first two limits
 *   docs/DEPLOY.md names, against the streamed frames per second.
 *
 *   npx tsx scripts/bench-scale.ts [--size small|full] [--stores sqlite,pg] [--runs N] [--clients N]
 *     [--sims N] [--stream-share 0.1] [--seconds N] [--deltas N] [--pace-s N] [--replicas N]
 *     [--quiet-check-ms N] (the bridge's `hermes.quiet_check_ms`: each quiet followed run asks
 *     Hermes for its status once per that interval; the default 10 s) [--settle-s N] (the RSS
 *     read again after the runs stayed parked N s more: V8 gives back the starts' heap pages late) ...
 *
 * BENCH_SCALE_HEAP_DIR=<dir> also takes a heap snapshot of the (first) daemon before any run and
 * once the runs are parked, and prints what it holds per parked run, grouped by constructor
 * (scripts/heapDiff.ts; a snapshot blocks the daemon while it is written, and reading one takes
 * several times its size: use it at a thousand runs or so, with NODE_OPTIONS=--max-old-space-size=8192).
 *
 * BENCH_SCALE_CPU_PROF=<dir> runs each daemon under `node --cpu-prof` (a profile of its whole life
 * in <dir> when it stops; read it with scripts/cpuprofSummary.ts, which maps the bundle's frames to
 * their sources through its source map). BENCH_SCALE_NODE_ARGS="..." adds node options to each daemon
 * (a preload with `--import`, say).
 *
 * The last line is `BENCH_JSON {…}` for scripts/bench.ts.
 */
import { Effect, Either, ManagedRuntime } from "effect"
import Database from "better-sqlite3"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as readline from "node:readline"
import pg from "pg"
import * as YAML from "yaml"
import { authLayer } from "../src/cli/runtime.ts"
import { loadConfig } from "../src/config/load.ts"
import { Auth } from "../src/services/auth/Auth.ts"
import { DB_FILE } from "../src/storage/Db.ts"
import { TOPICS } from "../src/storage/ChangeFeed.ts"
import { CallLost, type McpSession, openSession, type ToolOutcome } from "../test/reliability/support/mcpClient.ts"
import type { EventView } from "../test/reliability/support/runChecks.ts"
import { freeLoopbackPort } from "../test/support/freePort.ts"
import { type PgServer, startPostgres } from "../test/support/pgServer.ts"
import { buildBundle, ROOT } from "./build.ts"
import { heapNodeArgs, snapshot } from "./benchHeap.ts"
import { HEAP_SLACK_MIB_DEFAULT } from "../src/domain/limits.ts"
import { daemonLoopDelay, LOOP_PROBE_PATH, type LoopDelay, ownLoopDelay, probeTimes } from "./benchScaleWaits.ts"
import { printPerRun } from "./heapDiff.ts"
import { cpuMs, parkedInput, parkedRunProblems, parseScaleArgs, percentile, perRunKiB, rssKiB, type ScaleSize, split, streamedRunProblems, streamInput, streamText } from "./benchScaleParts.ts"

const { size: SIZE, name: SIZE_NAME, stores: STORES } = parseScaleArgs(process.argv.slice(2), process.env)
const BUNDLE_DIR = path.join(ROOT, "test-artifacts", "bench-scale")
const ADMIN_KEY = "hal0bk_bench0scale0admin0key0000000000000"
const CLUSTER_SECRET = "bench-scale-cluster-secret-0123456789abcdef"
const STATUS_PACE_MS = 80
const BASELINE_STATUS_CALLS = SIZE_NAME === "full" ? 1000 : 200
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))
const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`)

// ---------------------------------------------------------------------------------------------
// Processes

interface Child {
  readonly pid: number
  readonly stop: () => Promise<void>
  readonly tail: () => string
}

const spawnChild = (args: ReadonlyArray<string>, onLine?: (line: string) => void): { child: ChildProcess; handle: Child } => {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("AGENT_BRIDGE_") && k !== "NODE_OPTIONS") env[k] = v
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] })
  let tail = ""
  const keep = (c: Buffer) => { tail = (tail + c.toString("utf8")).slice(-8000) }
  child.stderr!.on("data", keep)
  if (onLine === undefined) child.stdout!.on("data", keep)
  else readline.createInterface({ input: child.stdout! }).on("line", onLine)
  const guard = () => void child.kill("SIGKILL")
  process.once("exit", guard)
  const exited = new Promise<void>((resolve) => child.once("exit", () => {
    process.removeListener("exit", guard)
    resolve()
  }))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
    const t = setTimeout(() => child.kill("SIGKILL"), 15_000)
    await exited
    clearTimeout(t)
  }
  return { child, handle: { pid: child.pid ?? -1, stop, tail: () => tail } }
}

interface SimFigures { readonly live: number; readonly subscribed: number; readonly emitted: number }
interface Sim extends Child { readonly url: string; readonly key: string; readonly figures: () => SimFigures }

const startSim = (maxConcurrentRuns: number): Promise<Sim> =>
  new Promise((resolve, reject) => {
    let first: { url: string; key: string } | undefined
    let latest: SimFigures = { live: 0, subscribed: 0, emitted: 0 }
    const options = { generation: "new", maxConcurrentRuns, approvalTimeoutMs: 86_400_000, clarifyTimeoutMs: 86_400_000 }
    const { child, handle } = spawnChild([...process.execArgv, path.join(ROOT, "scripts", "benchScaleSim.ts"), JSON.stringify(options)], (line) => {
      const parsed = JSON.parse(line) as Record<string, unknown>
      if (first === undefined) {
        first = parsed as { url: string; key: string }
        resolve({ ...handle, ...first, figures: () => latest })
      } else latest = parsed as unknown as SimFigures
    })
    child.once("exit", (code) => { if (first === undefined) reject(new Error(`a simulator exited (${code}) before it listened: ${handle.tail()}`)) })
  })

interface Bridge extends Child { readonly url: string }

const startBridge = async (bundle: string, configFile: string, port: number): Promise<Bridge> => {
  const profile = process.env["BENCH_SCALE_CPU_PROF"]
  const profileArgs = profile === undefined || profile === "" ? [] : ["--cpu-prof", `--cpu-prof-dir=${profile}`]
  const extraArgs = (process.env["BENCH_SCALE_NODE_ARGS"] ?? "").split(" ").filter((a) => a !== "")
  const { child, handle } = spawnChild([...heapNodeArgs(), ...profileArgs, ...extraArgs, bundle, "serve", "--config", configFile])
  // A daemon that dies before the bench stops it is the finding: its last output says why.
  let stopping = false
  child.once("exit", (code, signal) => {
    if (!stopping) log(`the daemon (pid ${handle.pid}) exited on its own (code ${code}, signal ${signal}); its last output:\n${handle.tail()}`)
  })
  const stop = () => {
    stopping = true
    return handle.stop()
  }
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 300_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the daemon exited during start-up: ${handle.tail()}`)
    const ready = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(3_000) })
      .then(async (r) => (JSON.parse(await r.text()) as { ready?: boolean }).ready === true)
      .catch(() => false)
    if (ready) return { ...handle, stop, url }
    await sleep(200)
  }
  await stop()
  throw new Error(`the daemon was not ready within 300 s: ${handle.tail()}`)
}

/** The PostgreSQL server's processes (the postmaster and its children), for their CPU. */
const pgPids = (server: PgServer): ReadonlyArray<number> => {
  const postmaster = Number(fs.readFileSync(path.join(server.dir, "data", "postmaster.pid"), "utf8").split("\n")[0])
  const pids = [postmaster]
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8")
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === postmaster) pids.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return pids
}
const cpuOf = (pids: ReadonlyArray<number>) => pids.reduce((a, p) => {
  try {
    return a + cpuMs(p)
  } catch {
    return a
  }
}, 0)

// ---------------------------------------------------------------------------------------------
// The workload

/** A tool call; a call that got no answer (CallLost: cut, timed out, a response without it) is a failed outcome, counted as such. */
const call = async (s: McpSession, tool: string, args: Record<string, unknown>, timeoutMs = 60_000): Promise<ToolOutcome> => {
  try {
    return await s.call(tool, args, timeoutMs)
  } catch (e) {
    if (e instanceof CallLost) return { ok: false, code: "lost", text: `${tool}: ${e.message}` }
    throw e
  }
}

/** Runs `n` tasks with at most `limit` at once. */
const pool = async (n: number, limit: number, task: (i: number) => Promise<void>) => {
  let next = 0
  await Promise.all(Array.from({ length: Math.min(n, limit) }, async () => {
    while (next < n) await task(next++)
  }))
}

interface StoreReader {
  /** Event rows stored in the ledger now. */
  readonly events: () => Promise<number>
  /** Committed transactions on the database now, reads included (PostgreSQL only). */
  readonly commits?: () => Promise<number>
  /** Transaction ids assigned so far: one per transaction that wrote (PostgreSQL only). */
  readonly writes?: () => Promise<number>
  /** Notifications received by a LISTEN client on every topic so far (PostgreSQL only). */
  readonly notifications?: () => number
  readonly close: () => Promise<void>
}

interface ArmResult {
  readonly store: string
  readonly replicas: number
  readonly parked: number
  readonly streaming: number
  readonly startsPerS: number
  readonly cpuPerStartMs: number
  readonly rssPerRunKiB: number
  /** The same after `--settle-s` more seconds parked (undefined without). */
  readonly settledRssPerRunKiB: number | undefined
  readonly simRssPerRunKiB: number
  readonly bridgeRssMiB: { readonly before: number; readonly parked: number; readonly peak: number }
  readonly idleCpuMsPerS: { readonly none: number; readonly parked: number }
  /** Net of what the parked runs cost anyway and of the status calls meanwhile. */
  readonly cpuPerEventMs: number
  /** All the bridge's CPU in the window over the frames. */
  readonly rawCpuPerEventMs: number
  readonly cpuPerStatusMs: number
  readonly simCpuPerEventMs: number
  readonly pgCpuPerEventMs?: number
  readonly framesPerS: number
  /** What `streaming` runs at the scripted pace would publish (deltas, the tool pair, the end). */
  readonly offeredFramesPerS: number
  /** Runs streaming at a moment in the window, on average (the simulators' live runs less the parked). */
  readonly streamingMean: number
  readonly rowsPerS: number
  readonly streamedRuns: number
  readonly statusP50: { readonly before: number; readonly during: number }
  readonly statusP99: { readonly before: number; readonly during: number }
  readonly statusCalls: number
  /** `/healthz` on the first daemon over the same window (the loop and a query, no MCP path). */
  readonly healthP50: number
  readonly healthP99: number
  readonly healthCalls: number
  /** A path no route serves (the router's 404) on the same pace: the loop alone. */
  readonly loopProbeP50: number
  readonly loopProbeP99: number
  readonly loopProbeCalls: number
  /** This process's event-loop delay over the window, and each daemon's (its `/metrics`). */
  readonly clientLoop: LoopDelay
  readonly daemonLoops: ReadonlyArray<LoopDelay>
  readonly lost: number
  readonly checked: number
  readonly failures: number
  readonly commitsPerS?: number
  /** While the runs are parked and nothing streams: the replicas' own background. */
  readonly idleCommitsPerS?: number
  readonly idleNotifiesPerS?: number
  /** Transactions that wrote (transaction ids assigned) per second, while streaming and while only parked. */
  readonly writesPerS?: number
  readonly idleWritesPerS?: number
  readonly notifiesPerS?: number
  readonly deliveriesPerS?: number
  readonly problems: ReadonlyArray<string>
}

const arm = async (bundle: string, store: "sqlite" | "pg", size: ScaleSize): Promise<ArmResult> => {
  const { streaming, parked } = split(size)
  const replicas = store === "pg" ? size.replicas : 1
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-scale-${store}-`))
  const stops: Array<() => Promise<void>> = []
  const problems: Array<string> = []
  const problem = (p: string) => { if (problems.length < 20) problems.push(p) }
  try {
    // Hermes: `sims` API servers, each with room for its share of every live run (and the churn).
    const perSim = Math.ceil((size.runs + streaming) / size.sims) + 50
    const sims = await Promise.all(Array.from({ length: size.sims }, () => startSim(perSim)))
    stops.push(async () => { await Promise.all(sims.map((s) => s.stop())) })
    const pgServer = store === "pg" ? await startPostgres() : undefined
    if (pgServer !== undefined) stops.push(() => pgServer.stop())
    const storageUrl = pgServer === undefined ? undefined : await pgServer.createDatabase("bench_scale")
    const agentOf = (i: number) => (i % size.sims === 0 ? "hermes" : `hermes/s${i % size.sims}`)
    const perClient = Math.min(1000, Math.ceil(size.runs / size.clients) * 2 + 10)
    const configs: Array<{ file: string; port: number }> = []
    for (let r = 0; r < replicas; r++) {
      const port = await freeLoopbackPort()
      const file = path.join(dir, `replica-${r}.yaml`)
      const profiles = Object.fromEntries(sims.slice(1).map((s, i) => [`s${i + 1}`, { url: s.url, key: s.key, max_concurrent_runs: perSim }]))
      fs.writeFileSync(file, YAML.stringify({
        bridge: { port, data_dir: path.join(dir, `data-${r}`), admin_key: ADMIN_KEY, max_concurrent_runs_per_client: perClient, ...(store === "pg" ? { replica_id: `r${r}`, trusted_proxies: ["127.0.0.1"] } : {}) },
        hermes: { url: sims[0]!.url, key: sims[0]!.key, max_concurrent_runs: perSim, ...(sims.length > 1 ? { profiles } : {}), ...(size.quietCheckMs > 0 ? { quiet_check_ms: size.quietCheckMs } : {}) },
        memory: { enabled: false },
        ...(storageUrl === undefined ? {} : { storage: { url: storageUrl }, cluster: { port: await freeLoopbackPort(), secret: CLUSTER_SECRET } })
      }))
      configs.push({ file, port })
    }
    // The clients' keys, written to the store before the daemons start (as `client add` does).
    const loaded = loadConfig({ configPath: configs[0]!.file, env: {}, cwd: dir })
    if (Either.isLeft(loaded)) throw new Error(loaded.left.message)
    const authRuntime = ManagedRuntime.make(authLayer(loaded.right))
    const keys: Array<string> = []
    for (let c = 0; c < size.clients; c++) keys.push(await authRuntime.runPromise(Effect.map(Effect.flatMap(Auth, (a) => a.addClient(`scale-${c}`, ["agents"])), (r) => r.key)))
    await authRuntime.dispose()

    const bridges = await Promise.all(configs.map((c) => startBridge(bundle, c.file, c.port)))
    stops.unshift(async () => { await Promise.all(bridges.map((b) => b.stop())) })
    log(`${store}: ${replicas} bridge process(es) ready (pid ${bridges.map((b) => b.pid).join(", ")}), ${size.sims} simulators (pid ${sims.map((s) => s.pid).join(", ")}, maxConcurrentRuns ${perSim} each)`)
    const bridgePids = bridges.map((b) => b.pid)
    const simPids = sims.map((s) => s.pid)
    const rss = (pids: ReadonlyArray<number>) => pids.map(rssKiB)
    const sum = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0)

    // What the ledger holds, read beside the daemons.
    let reader: StoreReader
    if (pgServer === undefined) {
      const db = new Database(path.join(dir, "data-0", DB_FILE), { readonly: true, fileMustExist: true })
      const count = db.prepare("SELECT COUNT(*) AS n FROM run_events")
      reader = { events: async () => (count.get() as { n: number }).n, close: async () => { db.close() } }
    } else {
      const q = new pg.Client({ connectionString: storageUrl })
      await q.connect()
      const listener = new pg.Client({ connectionString: storageUrl })
      await listener.connect()
      let notified = 0
      listener.on("notification", () => { notified++ })
      for (const t of TOPICS) await listener.query(`LISTEN agent_bridge_${t}`)
      reader = {
        events: async () => Number((await q.query("SELECT COUNT(*) AS n FROM run_events")).rows[0].n),
        commits: async () => {
          // The statistics a backend has not flushed yet are not in the view: ask for a fresh snapshot.
          await q.query("SELECT pg_stat_clear_snapshot()")
          return Number((await q.query("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")).rows[0].xact_commit)
        },
        // The next transaction id: it moves only when a transaction writes (reads take none).
        writes: async () => Number((await q.query("SELECT txid_snapshot_xmax(txid_current_snapshot()) AS x")).rows[0].x),
        notifications: () => notified,
        close: async () => { await q.end(); await listener.end() }
      }
    }
    stops.unshift(() => reader.close())

    // One session per client, spread over the replicas.
    const sessions = await Promise.all(keys.map((k, c) => openSession(bridges[c % bridges.length]!.url, k)))
    stops.unshift(async () => { await Promise.all(sessions.map((s) => s.close())) })
    const sessionOf = (i: number) => sessions[i % sessions.length]!

    // Warm-up: every client runs one short run to its end; their ids serve the status baseline.
    const warm: Array<{ id: string; client: number }> = []
    await pool(size.clients, 32, async (c) => {
      const out = await call(sessionOf(c), "agent_run", { agent: agentOf(c), input: `[sim:deltas=5] warm ${c}`, wait_s: 60 }, 120_000)
      if (!out.ok || out.value.status !== "completed") throw new Error(`warm-up run ${c}: ${out.ok ? out.value.status : out.text}`)
      warm.push({ id: out.value.run_id as string, client: c })
    })
    // A client reads its own runs: each call goes through the session of the run's client.
    const statusTimes = async (ids: ReadonlyArray<{ id: string; client: number }>, until: () => boolean, times: Array<number>, paceMs = 0) => {
      await Promise.all(Array.from({ length: size.statusInFlight }, async (_, k) => {
        for (let i = k; !until(); i += size.statusInFlight) {
          const run = ids[(i * 7919) % ids.length]!
          const t0 = performance.now()
          const out = await call(sessionOf(run.client), "agent_run_status", { run_id: run.id })
          const ms = performance.now() - t0
          times.push(ms)
          if (!out.ok) problem(`agent_run_status: ${out.text}`)
          if (paceMs > ms) await sleep(paceMs - ms)
        }
      }))
    }
    const before: Array<number> = []
    const baselineCpu0 = cpuOf(bridgePids)
    const baselineT0 = performance.now()
    await statusTimes(warm, () => before.length >= BASELINE_STATUS_CALLS, before)
    const baselineCpu = cpuOf(bridgePids) - baselineCpu0
    const baselineS = (performance.now() - baselineT0) / 1000
    await sleep(2_000)
    const idleWindow = async () => {
      const c0 = cpuOf(bridgePids)
      const t0 = performance.now()
      await sleep(SIZE_NAME === "full" ? 10_000 : 5_000)
      return (cpuOf(bridgePids) - c0) / ((performance.now() - t0) / 1000)
    }
    const idleNone = await idleWindow()
    // The bridge's CPU per status call, less what it spends with nothing to do.
    const cpuPerStatusMs = Math.max(0, (baselineCpu - idleNone * baselineS) / before.length)
    const rss0 = rss(bridgePids)
    const simRss0 = rss(simPids)
    const heapBefore = await snapshot(bridgePids[0]!, bridges[0]!.url, `${store}-before`)
    log(`${store}: before any live run: bridge RSS ${(sum(rss0) / 1024).toFixed(1)} MiB, CPU ${idleNone.toFixed(1)} ms/s, agent_run_status p99 ${percentile(before, 0.99).toFixed(1)} ms`)

    // Parked runs, started from every client over every profile.
    const parkedIds: Array<{ id: string; i: number; client: number }> = []
    let failures = 0
    const tStart = performance.now()
    const cpuStart = cpuOf(bridgePids)
    await pool(parked, 64, async (i) => {
      const client = i % size.clients
      const out = await call(sessionOf(client), "agent_run", { agent: agentOf(i), input: parkedInput(i) }, 120_000)
      if (!out.ok) {
        failures++
        problem(`parked run ${i}: ${out.text}`)
      } else parkedIds.push({ id: out.value.run_id as string, i, client })
    })
    const startsPerS = parked / ((performance.now() - tStart) / 1000)
    const cpuPerStartMs = (cpuOf(bridgePids) - cpuStart - idleNone * ((performance.now() - tStart) / 1000)) / parked
    log(`${store}: ${parkedIds.length} parked runs started (${startsPerS.toFixed(0)}/s); waiting until each is followed`)
    const subscribed = () => sum(sims.map((s) => s.figures().subscribed))
    for (let i = 0; i < 1200 && subscribed() < parkedIds.length; i++) await sleep(500)
    if (subscribed() < parkedIds.length) problem(`only ${subscribed()} of ${parkedIds.length} parked runs followed after 600 s`)
    await sleep(3_000)
    const rss1 = rss(bridgePids)
    const simRss1 = rss(simPids)
    const idleC0 = await reader.commits?.()
    const idleW0 = await reader.writes?.()
    const idleN0 = reader.notifications?.()
    const idleT0 = performance.now()
    const idleParked = await idleWindow()
    const idleS = (performance.now() - idleT0) / 1000
    const idleCommitsPerS = idleC0 === undefined ? undefined : ((await reader.commits!()) - idleC0) / idleS
    const idleWritesPerS = idleW0 === undefined ? undefined : ((await reader.writes!()) - idleW0) / idleS
    const idleNotifiesPerS = idleN0 === undefined ? undefined : (reader.notifications!() - idleN0) / idleS
    const heapParked = await snapshot(bridgePids[0]!, bridges[0]!.url, `${store}-parked`)
    // What one daemon holds per parked run (its share of them on PostgreSQL is about 1/replicas).
    if (heapBefore !== undefined && heapParked !== undefined) printPerRun(heapBefore, heapParked, parkedIds.length / replicas)
    const rssPerRun = perRunKiB(rss0, rss1, parkedIds.length)
    const simRssPerRun = perRunKiB(simRss0, simRss1, parkedIds.length)
    log(`${store}: ${parkedIds.length} parked: bridge RSS ${(sum(rss1) / 1024).toFixed(1)} MiB (${rssPerRun.toFixed(1)} KiB per run; simulators ${simRssPerRun.toFixed(1)} KiB per run), CPU ${idleParked.toFixed(1)} ms/s`)
    // --settle-s: the same runs read again once V8 has had time to give back the starts' heap pages.
    let settledRssPerRun: number | undefined
    if (size.settleS > 0) {
      await sleep(size.settleS * 1000)
      settledRssPerRun = perRunKiB(rss0, rss(bridgePids), parkedIds.length)
      log(`${store}: still parked after ${size.settleS} s more: ${settledRssPerRun.toFixed(1)} KiB per run`)
    }

    // Streaming: `streaming` loops, staggered over one pace, each starting a run as its last ends.
    const expected = streamText(size)
    const streamed: Array<{ id: string; client: number }> = []
    let stopStarting = false
    let streamNo = 0
    let peakRss = sum(rss1)
    // Runs streaming at a moment: what the simulators hold live beyond the parked ones, sampled in the window.
    const streamingNow: Array<number> = []
    let sampling = false
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, sum(rss(bridgePids)))
      if (sampling) streamingNow.push(sum(sims.map((s) => s.figures().live)) - parkedIds.length)
    }, 500)
    const loops = Promise.all(Array.from({ length: streaming }, async (_, j) => {
      await sleep((j / streaming) * size.paceS * 1000)
      const client = j % size.clients
      while (!stopStarting) {
        const n = streamNo++
        const out = await call(sessionOf(client), "agent_run", { agent: agentOf(j), input: streamInput(size, n), wait_s: Math.min(600, size.paceS * 4 + 60) }, (size.paceS * 4 + 120) * 1000)
        if (!out.ok) {
          failures++
          problem(`streamed run ${n}: ${out.text}`)
          await sleep(1_000)
        } else streamed.push({ id: out.value.run_id as string, client })
      }
    }))
    // The window opens once every loop has started (one pace in), and lasts `seconds`.
    await sleep(size.paceS * 1000)
    const w0 = {
      t: performance.now(), cpu: cpuOf(bridgePids), simCpu: cpuOf(simPids), pgCpu: pgServer === undefined ? 0 : cpuOf(pgPids(pgServer)),
      frames: sum(sims.map((s) => s.figures().emitted)), rows: await reader.events(), commits: await reader.commits?.(), writes: await reader.writes?.(), notes: reader.notifications?.()
    }
    const during: Array<number> = []
    let windowOpen = true
    sampling = true
    // Where a status call waits (scripts/benchScaleWaits.ts): each daemon's loop delay (this scrape
    // starts its window), this process's own, and /healthz on the first daemon meanwhile.
    await Promise.all(bridges.map((b) => daemonLoopDelay(b.url, ADMIN_KEY)))
    const ownLoop = ownLoopDelay()
    const health: Array<number> = []
    const healthDuring = probeTimes(bridges[0]!.url, "/healthz", 1, 250, () => !windowOpen, health)
    const loopOnly: Array<number> = []
    const loopOnlyDuring = probeTimes(bridges[0]!.url, LOOP_PROBE_PATH, 1, 250, () => !windowOpen, loopOnly)
    // A monitoring client's pace, not a load of its own: each of the calls in flight at most every STATUS_PACE_MS.
    const statusDuring = statusTimes(parkedIds, () => !windowOpen, during, STATUS_PACE_MS)
    await sleep(size.seconds * 1000)
    windowOpen = false
    sampling = false
    // The simulators report every 500 ms: wait for a fresh figure on both ends alike.
    await sleep(600)
    const w1 = {
      t: performance.now() - 600, cpu: cpuOf(bridgePids), simCpu: cpuOf(simPids), pgCpu: pgServer === undefined ? 0 : cpuOf(pgPids(pgServer)),
      frames: sum(sims.map((s) => s.figures().emitted)), rows: await reader.events(), commits: await reader.commits?.(), writes: await reader.writes?.(), notes: reader.notifications?.()
    }
    await statusDuring
    await healthDuring
    await loopOnlyDuring
    const clientLoop = ownLoop.stop()
    const daemonLoops = await Promise.all(bridges.map((b) => daemonLoopDelay(b.url, ADMIN_KEY)))
    stopStarting = true
    log(`${store}: window closed; waiting for the streaming runs in flight to end`)
    await loops
    clearInterval(sampler)
    const seconds = (w1.t - w0.t) / 1000
    const frames = w1.frames - w0.frames

    // Every streamed run read back, and a sample of the parked ones.
    let lost = 0
    let checked = 0
    const events = async (s: McpSession, id: string): Promise<{ events: ReadonlyArray<EventView>; lastSeq: number }> => {
      const out = await call(s, "agent_run_events", { run_id: id, since_seq: 0, limit: 500 })
      if (!out.ok) throw new Error(`agent_run_events ${id}: ${out.text}`)
      return { events: out.value.events as ReadonlyArray<EventView>, lastSeq: out.value.last_seq as number }
    }
    await pool(streamed.length, 16, async (k) => {
      const { id, client } = streamed[k]!
      const s = sessionOf(client)
      const view = await call(s, "agent_run_status", { run_id: id })
      const ev = await events(s, id)
      const found = view.ok ? streamedRunProblems({ status: view.value.status, lastSeq: ev.lastSeq, output: view.value.output ?? "", events: ev.events }, expected) : [view.text]
      checked++
      if (found.length > 0) {
        lost++
        problem(`streamed run ${id}: ${found.join("; ")}`)
      }
    })
    const sample = parkedIds.filter((_, k) => k % Math.max(1, Math.floor(parkedIds.length / size.parkedChecked)) === 0).slice(0, size.parkedChecked)
    await pool(sample.length, 16, async (k) => {
      const { id, i, client } = sample[k]!
      const s = sessionOf(client)
      const view = await call(s, "agent_run_status", { run_id: id })
      const ev = await events(s, id)
      const found = view.ok ? parkedRunProblems({ status: view.value.status, lastSeq: ev.lastSeq, events: ev.events }, i % 2 === 0) : [view.text]
      checked++
      if (found.length > 0) {
        lost++
        problem(`parked run ${id}: ${found.join("; ")}`)
      }
    })

    const commitsPerS = w0.commits === undefined || w1.commits === undefined ? undefined : (w1.commits - w0.commits) / seconds
    const writesPerS = w0.writes === undefined || w1.writes === undefined ? undefined : (w1.writes - w0.writes) / seconds
    const notifiesPerS = w0.notes === undefined || w1.notes === undefined ? undefined : (w1.notes - w0.notes) / seconds
    return {
      store, replicas, parked: parkedIds.length, streaming, startsPerS, cpuPerStartMs,
      rssPerRunKiB: rssPerRun, settledRssPerRunKiB: settledRssPerRun, simRssPerRunKiB: simRssPerRun,
      bridgeRssMiB: { before: sum(rss0) / 1024, parked: sum(rss1) / 1024, peak: peakRss / 1024 },
      idleCpuMsPerS: { none: idleNone, parked: idleParked },
      cpuPerEventMs: (w1.cpu - w0.cpu - idleParked * seconds - during.length * cpuPerStatusMs) / frames,
      rawCpuPerEventMs: (w1.cpu - w0.cpu) / frames,
      cpuPerStatusMs,
      simCpuPerEventMs: (w1.simCpu - w0.simCpu) / frames,
      ...(pgServer === undefined ? {} : { pgCpuPerEventMs: (w1.pgCpu - w0.pgCpu) / frames }),
      framesPerS: frames / seconds,
      offeredFramesPerS: streaming * (size.deltas + 3) / size.paceS,
      streamingMean: streamingNow.reduce((a, b) => a + b, 0) / Math.max(1, streamingNow.length),
      rowsPerS: (w1.rows - w0.rows) / seconds,
      streamedRuns: streamed.length,
      statusP50: { before: percentile(before, 0.5), during: percentile(during, 0.5) },
      statusP99: { before: percentile(before, 0.99), during: percentile(during, 0.99) },
      statusCalls: during.length,
      healthP50: percentile(health, 0.5), healthP99: percentile(health, 0.99), healthCalls: health.length,
      loopProbeP50: percentile(loopOnly, 0.5), loopProbeP99: percentile(loopOnly, 0.99), loopProbeCalls: loopOnly.length,
      clientLoop, daemonLoops,
      lost, checked, failures,
      ...(commitsPerS === undefined ? {} : { commitsPerS, idleCommitsPerS: idleCommitsPerS! }),
      ...(idleNotifiesPerS === undefined ? {} : { idleNotifiesPerS }),
      ...(writesPerS === undefined ? {} : { writesPerS, idleWritesPerS: idleWritesPerS! }),
      ...(notifiesPerS === undefined ? {} : { notifiesPerS, deliveriesPerS: notifiesPerS * replicas }),
      problems
    }
  } finally {
    for (const stop of stops) await stop().catch((e) => console.error(`teardown: ${e instanceof Error ? e.message : String(e)}`))
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------------------------------------

const f = (n: number | undefined, d = 1) => (n === undefined || !Number.isFinite(n) ? "–" : n.toFixed(d))

const report = (r: ArmResult) => {
  const where = r.store === "pg" ? `PostgreSQL, ${r.replicas} replicas` : "SQLite"
  console.log(`\n${where}: ${r.parked + r.streaming} live runs (${r.parked} parked, ${r.streaming} streaming at any moment), ${r.streamedRuns} streamed runs in all`)
  console.log(`  bridge RSS                ${f(r.bridgeRssMiB.before)} MiB before, ${f(r.bridgeRssMiB.parked)} MiB parked, ${f(r.bridgeRssMiB.peak)} MiB peak while streaming`)
  console.log(`  own RSS per live run      ${f(r.rssPerRunKiB)} KiB (goal ≤ 64 KiB; ${f(r.rssPerRunKiB / 64, 2)}× the goal); the simulators' ${f(r.simRssPerRunKiB)} KiB per run beside, not counted`)
  if (r.settledRssPerRunKiB !== undefined) console.log(`                            ${f(r.settledRssPerRunKiB)} KiB after --settle-s ${SIZE.settleS} s more parked (${f(r.settledRssPerRunKiB / 64, 2)}× the goal)`)
  // Each process may hold its heap's slack in garbage between full collections whatever its runs:
  // spread over few runs it is most of the figure, so the goal is read at the full size.
  const slackPerRunKiB = (HEAP_SLACK_MIB_DEFAULT * 1024 * r.replicas) / Math.max(1, r.parked)
  console.log(`                            of it up to ${f(slackPerRunKiB)} KiB a run may be the heap's slack (bridge.heap_slack_mib, ${HEAP_SLACK_MIB_DEFAULT} MiB a process, over ${r.parked} parked runs)${SIZE_NAME === "full" ? "" : "; the goal is read at the full size"}`)
  console.log(`  CPU while parked          ${f(r.idleCpuMsPerS.parked)} ms/s vs ${f(r.idleCpuMsPerS.none)} ms/s with no run (${f(r.idleCpuMsPerS.parked / r.idleCpuMsPerS.none, 2)}×)`)
  console.log(`  CPU per streamed event    ${f(r.cpuPerEventMs, 3)} ms (the simulators' own ${f(r.simCpuPerEventMs, 3)} ms per frame: ${f(r.cpuPerEventMs / r.simCpuPerEventMs, 2)}×)${r.pgCpuPerEventMs === undefined ? "" : `; PostgreSQL's ${f(r.pgCpuPerEventMs, 3)} ms`}`)
  console.log(`                            net of the parked runs' ${f(r.idleCpuMsPerS.parked)} ms/s and ${r.statusCalls} status calls at ${f(r.cpuPerStatusMs, 2)} ms; all of the window's CPU: ${f(r.rawCpuPerEventMs, 3)} ms per frame`)
  console.log(`  streaming                 ${f(r.streamingMean, 0)} runs at a moment on average (${r.streaming} loops); ${f(r.framesPerS, 0)} Hermes frames/s published, ${f(r.offeredFramesPerS, 0)}/s if every loop kept pace (${f(r.framesPerS / r.offeredFramesPerS, 2)}×)`)
  console.log(`  ledger write rate         ${f(r.rowsPerS, 0)} event rows/s for ${f(r.framesPerS, 0)} Hermes frames/s (${f(r.rowsPerS / r.framesPerS, 2)} rows per frame: the text of a flush tick is one row)`)
  if (r.commitsPerS !== undefined) console.log(`  commits                   ${f(r.commitsPerS, 0)}/s, reads included (${f(r.commitsPerS / r.framesPerS, 2)} per frame); ${f(r.idleCommitsPerS, 1)}/s while only parked`)
  if (r.writesPerS !== undefined) console.log(`  writing transactions      ${f(r.writesPerS, 0)}/s (${f(r.writesPerS / r.framesPerS, 2)} per frame); ${f(r.idleWritesPerS, 1)}/s while only parked`)
  if (r.notifiesPerS !== undefined) console.log(`  NOTIFY                    ${f(r.notifiesPerS, 0)} notifications/s, ${f(r.deliveriesPerS, 0)} deliveries/s to ${r.replicas} listening replicas (${f(r.notifiesPerS / (r.writesPerS ?? Number.NaN), 2)} per writing transaction); ${f(r.idleNotifiesPerS, 1)} notifications/s while only parked`)
  console.log(`  agent_run_status          p50 ${f(r.statusP50.during)} ms, p99 ${f(r.statusP99.during)} ms over ${r.statusCalls} calls meanwhile, vs p99 ${f(r.statusP99.before)} ms with no live run (${f(r.statusP99.during / r.statusP99.before, 2)}×)`)
  console.log(`  where a call waits         a 404 (the loop alone) p50 ${f(r.loopProbeP50)} ms, p99 ${f(r.loopProbeP99)} ms over ${r.loopProbeCalls}; /healthz (the loop and a query) p50 ${f(r.healthP50)} ms, p99 ${f(r.healthP99)} ms over ${r.healthCalls}`)
  console.log(`                            daemon loop delay ${r.daemonLoops.map((d) => `p50 ${f(d.p50Ms, 0)}, p99 ${f(d.p99Ms, 0)}, max ${f(d.maxMs, 0)} ms`).join("; ")}; this client's loop p50 ${f(r.clientLoop.p50Ms, 0)}, p99 ${f(r.clientLoop.p99Ms, 0)}, max ${f(r.clientLoop.maxMs, 0)} ms`)
  console.log(`  starts                    ${f(r.startsPerS, 0)} agent_run/s while parking, ${f(r.cpuPerStartMs, 2)} ms of bridge CPU each (net of idle)`)
  console.log(`  runs with lost events     ${r.lost} of ${r.checked} read back (goal 0); failed calls ${r.failures}`)
  for (const p of r.problems) console.log(`    ! ${p}`)
}

const rowsOf = (r: ArmResult) => {
  const on = r.store === "pg" ? `, PostgreSQL ×${r.replicas}` : ", SQLite"
  const live = r.parked + r.streaming
  return [
    { metric: `own RSS per live run (KiB), ${live} live${on}`, value: r.rssPerRunKiB, baseline: 64, baselineName: "the goal, 64 KiB", goal: "≤ 64 KiB" },
    ...(r.settledRssPerRunKiB === undefined ? [] : [{ metric: `own RSS per live run (KiB) after ${SIZE.settleS} s more parked, ${live} live${on}`, value: r.settledRssPerRunKiB, baseline: 64, baselineName: "the goal, 64 KiB", goal: "≤ 64 KiB" }]),
    { metric: `CPU ms/s with ${r.parked} parked runs${on}`, value: r.idleCpuMsPerS.parked, baseline: r.idleCpuMsPerS.none, baselineName: "the same bridge with no run" },
    { metric: `CPU ms per streamed event${on}`, value: r.cpuPerEventMs, baseline: r.simCpuPerEventMs, baselineName: "the simulators' CPU per frame" },
    { metric: `ledger event rows/s${on}`, value: r.rowsPerS, baseline: r.framesPerS, baselineName: "Hermes frames/s streamed", noRatio: false },
    { metric: `agent_run_status p99 (ms) under load${on}`, value: r.statusP99.during, baseline: r.statusP99.before, baselineName: "the same call with no live run" },
    ...(r.commitsPerS === undefined ? [] : [{ metric: `commits/s, reads included${on}`, value: r.commitsPerS, baseline: r.framesPerS, baselineName: "Hermes frames/s streamed" }]),
    ...(r.writesPerS === undefined ? [] : [{ metric: `writing transactions/s${on}`, value: r.writesPerS, baseline: r.framesPerS, baselineName: "Hermes frames/s streamed" }]),
    ...(r.deliveriesPerS === undefined ? [] : [{ metric: `NOTIFY deliveries/s${on}`, value: r.deliveriesPerS, baseline: r.framesPerS, baselineName: "Hermes frames/s streamed" }]),
    { metric: `runs with lost events${on}`, value: r.lost, baseline: r.checked, baselineName: "runs read back", goal: "0", noRatio: true }
  ]
}

const main = async () => {
  const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? "?"}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, node ${process.version}`
  const { streaming, parked } = split(SIZE)
  console.log(`bench-scale (${SIZE_NAME}): ${SIZE.runs} live runs (${parked} parked, ${streaming} streaming) from ${SIZE.clients} clients over ${SIZE.sims} simulated Hermes servers; ${SIZE.deltas} deltas of ${SIZE.outputBytes} bytes over ${SIZE.paceS} s per streamed run; a ${SIZE.seconds} s window; stores ${STORES.join(", ")}; hermes.quiet_check_ms ${SIZE.quietCheckMs > 0 ? SIZE.quietCheckMs : "10000 (default)"}`)
  console.log(`${new Date().toISOString()} — ${machine}; load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`)
  const { file: bundle } = await buildBundle(BUNDLE_DIR)
  const results: Array<ArmResult> = []
  for (const store of STORES) {
    const r = await arm(bundle, store, SIZE)
    report(r)
    results.push(r)
  }
  console.log(`\nload average at the end ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`)
  console.log(`BENCH_JSON ${JSON.stringify({ bench: "scale", rows: results.flatMap(rowsOf) })}`)
  if (results.some((r) => r.lost > 0 || r.failures > 0)) process.exitCode = 1
}

main().then(() => process.exit(process.exitCode ?? 0), (e) => {
  console.error(e)
  // A failed call is often a daemon that died: its exit (and last output) is reported first.
  setTimeout(() => process.exit(1), 2_000)
})
