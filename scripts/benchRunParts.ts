/**
 * The pieces of the run benchmarks shared by bench-runs (the bridge vs the simulator read directly)
 * and bench-storage (the bridge on PostgreSQL vs the same bridge on SQLite): a throwaway config, the
 * run service composed as the daemon composes it over the configured store, the streaming arm
 * (many paced runs through follower → ledger → waits, with the events lost counted), and the
 * `agent_run_status` latency over real HTTP against a no-op tool on the same MCP server.
 */
import { HttpServer } from "@effect/platform"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Context, Effect, Either, Exit, Layer, ManagedRuntime, Schedule } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as v8 from "node:v8"
import * as vm from "node:vm"
import { LifecycleReady } from "../src/common/Lifecycle.ts"
import { RedactorLive } from "../src/common/Redactor.ts"
import { AppConfigLive } from "../src/config/AppConfig.ts"
import { loadConfig, type ResolvedConfig } from "../src/config/load.ts"
import { daemonLayer } from "../src/daemon/Daemon.ts"
import { HeapSlackBounded } from "../src/daemon/heapSlack.ts"
import { InboxServices } from "../src/daemon/teachServices.ts"
import type { HermesEvent } from "../src/domain/runs/hermesEvents.ts"
import { HermesClient, type HermesProfile } from "../src/hermes/client/HermesClient.ts"
import { SimulatedHermes, Simulator } from "../src/hermes/sim/layer.ts"
import { Caller } from "../src/request/Caller.ts"
import { Progress } from "../src/request/Progress.ts"
import { Auth } from "../src/services/auth/Auth.ts"
import { LedgerLive } from "../src/services/runs/LedgerSql.ts"
import { makeRuns } from "../src/services/runs/RunsLive.ts"
import { DbForStores } from "../src/storage/Db.ts"
import { noopTool } from "./benchNoopTool.ts"

v8.setFlagsFromString("--expose-gc")
const gc = vm.runInNewContext("gc") as () => void

/** Three full collections with a pause between: the heap before a measurement is the live set. */
export const settle = () => Effect.promise(async () => {
  for (let i = 0; i < 3; i++) {
    gc()
    await new Promise((r) => setTimeout(r, 50))
  }
})

/** A config in a fresh temp folder; `extra` are environment settings (`AGENT_BRIDGE_STORAGE_URL`…). */
export const tempConfig = (extra: Record<string, string> = {}): ResolvedConfig => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-runs-"))
  const loaded = loadConfig({
    env: {
      AGENT_BRIDGE_BRIDGE_DATA_DIR: path.join(dir, "data"),
      AGENT_BRIDGE_BRIDGE_PORT: "0",
      AGENT_BRIDGE_BRIDGE_MAX_CONCURRENT_RUNS_PER_CLIENT: "1000",
      // The simulator's cap (simOptions): the bridge's queue must not stand in for what is measured.
      AGENT_BRIDGE_HERMES_MAX_CONCURRENT_RUNS: "100000",
      // BENCH_HEAP_SLACK_MIB=0 measures the bridge under V8's own heap policy (an A/B of bridge.heap_slack_mib).
      ...(process.env["BENCH_HEAP_SLACK_MIB"] === undefined ? {} : { AGENT_BRIDGE_BRIDGE_HEAP_SLACK_MIB: process.env["BENCH_HEAP_SLACK_MIB"] }),
      ...extra
    },
    cwd: dir
  })
  if (Either.isLeft(loaded)) throw new Error(loaded.left.message)
  return loaded.right
}

/** Samples RSS every 10 ms while `body` runs; returns its wall time, CPU time and peak RSS. */
export const measured = <A, E, R>(body: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    let peak = process.memoryUsage().rss
    const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss) }, 10)
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    const value = yield* body.pipe(Effect.ensuring(Effect.sync(() => clearInterval(timer))))
    const cpu = process.cpuUsage(cpu0)
    return { value, wallMs: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000, peakRssMb: Math.max(peak, process.memoryUsage().rss) / 2 ** 20 }
  })

export const simOptions = { maxConcurrentRuns: 100_000, keepaliveMs: 60_000 }

/** The run service in this process over the simulator, as the daemon composes it (the configured store). */
export const bridgeServices = (config: ResolvedConfig) =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const hermesContext = yield* Layer.buildWithScope(SimulatedHermes(simOptions), scope)
    const made = yield* bridgeOver(config, Context.get(hermesContext, HermesClient))
    return { ...made, sim: Context.get(hermesContext, Simulator) }
  })

/** The run service in this process over any HermesClient (the simulator in another process, say). */
export const bridgeOver = (config: ResolvedConfig, hermes: Context.Tag.Service<HermesClient>) =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    // The daemon's heap policy (`serve` sets it too): the measured process collects as the daemon does.
    yield* Layer.buildWithScope(HeapSlackBounded(config.bridge.heap_slack_mib), scope)
    const base = Layer.mergeAll(AppConfigLive(config), RedactorLive, LifecycleReady, Layer.succeed(HermesClient, hermes))
    const deps = Layer.mergeAll(LedgerLive, InboxServices).pipe(Layer.provideMerge(base), Layer.provideMerge(DbForStores(config)))
    const context = yield* Layer.buildWithScope(deps, scope)
    return yield* makeRuns.pipe(Effect.provide(context))
  })

/**
 * `runs` runs started on `hermes` and parked on an approval, each followed by `follow` in a fiber of
 * its own (no run service): the heap and RSS it took per run, once every follow has seen its run's
 * approval request (bounded: 120 s).
 */
/**
 * BENCH_HEAP_SNAPSHOT_DIR=dir: a heap snapshot `<dir>/<name>.heapsnapshot` (what holds the parked
 * runs: `scripts/heapDiff.ts before after RUNS`).
 */
export const heapSnapshotAs = (name: string) => {
  const dir = process.env["BENCH_HEAP_SNAPSHOT_DIR"]
  if (dir === undefined || dir === "") return
  fs.mkdirSync(dir, { recursive: true })
  v8.writeHeapSnapshot(path.join(dir, `${name}.heapsnapshot`))
}

export const parkedFollowed = (
  hermes: Context.Tag.Service<typeof HermesClient>,
  runs: number,
  follow: (profile: HermesProfile, hermesRunId: string, onEvent: (e: HermesEvent) => void) => Effect.Effect<unknown, unknown>
) =>
  Effect.gen(function* () {
    const profile = yield* hermes.profile("hermes")
    yield* settle()
    const before = process.memoryUsage()
    heapSnapshotAs("before")
    let waiting = 0
    const onEvent = (e: HermesEvent) => { if (e.event === "approval.request") waiting += 1 }
    yield* Effect.forEach(Array.from({ length: runs }, (_, i) => i), (i) =>
      Effect.flatMap(hermes.start(profile, { input: `[sim:approval] parked ${i}` }), (started) =>
        follow(profile, started.hermesRunId, onEvent).pipe(Effect.ignore, Effect.forkScoped)
      ), { concurrency: 50 })
    yield* Effect.sync(() => waiting).pipe(
      Effect.repeat({ schedule: Schedule.spaced("100 millis").pipe(Schedule.upTo("120 seconds")), until: (n) => n === runs }),
      Effect.zipRight(Effect.sleep("500 millis"))
    )
    yield* settle()
    const after = process.memoryUsage()
    heapSnapshotAs("after")
    return { rssPerRunKb: (after.rss - before.rss) / runs / 1024, heapPerRunKb: (after.heapUsed - before.heapUsed) / runs / 1024, followed: waiting }
  })

export const asBench = <A, E, R>(e: Effect.Effect<A, E, R>) =>
  e.pipe(Effect.provideService(Caller, Caller.client("bench")), Effect.provideService(Progress, { enabled: false, report: () => Effect.void }))

export interface StreamShape {
  readonly runs: number
  readonly deltas: number
  /** Each run's deltas are spread over this many seconds, so all runs are live at once. */
  readonly paceS: number
}

/** Starts in flight at once: 500 simultaneous starts would only measure queueing. */
export const START_CONCURRENCY = 50

export const streamInput = (shape: StreamShape, i: number) => `[sim:deltas=${shape.deltas},slow=${shape.paceS}s] task ${i}`

/** `shape.runs` paced runs through the bridge on `config`'s store; lost = runs whose stored text differs from the simulator's. */
export const streamBridge = (shape: StreamShape, config: ResolvedConfig) =>
  Effect.gen(function* () {
    const b = yield* bridgeServices(config)
    yield* settle()
    const m = yield* measured(
      Effect.gen(function* () {
        const views = yield* Effect.forEach(Array.from({ length: shape.runs }, (_, i) => i), (i) =>
          asBench(b.runs.start({ agent: "hermes", input: streamInput(shape, i) })), { concurrency: START_CONCURRENCY })
        return yield* Effect.forEach(views, (v) => asBench(b.runs.wait(v.run_id, 600)), { concurrency: "unbounded" })
      })
    )
    let lost = 0
    // Each batch of streamed text is one `message.text` event: how many ledger writes the text took.
    let textBatches = 0
    const simRuns = [...b.sim.state.runs.values()]
    for (const view of m.value) {
      const page = yield* asBench(b.runs.events(view.run_id, 0, 500))
      const texts = page.events.filter((e) => e.type === "message.text")
      textBatches += texts.length
      const text = texts.map((e) => e.data["text"]).join("")
      const sim = simRuns.find((r) => r.input === streamInput(shape, Number(view.input_preview.split(" ").at(-1))))
      if (view.status !== "completed" || sim === undefined || text !== sim.output || view.output !== sim.output) lost += 1
    }
    return { wallMs: m.wallMs, cpuMs: m.cpuMs, peakRssMb: m.peakRssMb, runsWithLoss: lost, runs: m.value.length, textBatches }
  }).pipe(Effect.scoped)

/** The `p`th percentile of `xs` (nearest rank). */
export const percentile = (xs: ReadonlyArray<number>, p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!

/** `agent_run_status` on a finished run and a no-op tool, alternating, `calls` of each after 200 warm-ups. */
export const statusLatency = (calls: number, config: ResolvedConfig) =>
  Effect.gen(function* () {
    const runtime = ManagedRuntime.make(daemonLayer(config, { extraAgentTools: [noopTool] }))
    const port = yield* Effect.promise(() => runtime.runPromise(HttpServer.addressWith((a) => Effect.succeed(a._tag === "TcpAddress" ? a.port : 0))))
    const auth = yield* Effect.promise(() => runtime.runPromise(Auth))
    const key = yield* Effect.promise(() => Effect.runPromise(Effect.map(auth.addClient("bench", ["agents"]), (r) => r.key)))
    const client = new Client({ name: "bench", version: "0" })
    yield* Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp/agents/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } }
    })))
    const call = (name: string, args: Record<string, unknown>) => Effect.promise(() => client.callTool({ name, arguments: args }))
    const started = (yield* call("agent_run", { agent: "hermes", input: "[sim:outputBytes=20k] bench", wait_s: 30 })) as { structuredContent?: { run_id?: string } }
    const runId = started.structuredContent?.run_id ?? ""
    const time = (name: string, args: Record<string, unknown>) =>
      Effect.gen(function* () {
        const t0 = performance.now()
        const r = (yield* call(name, args)) as { isError?: boolean }
        if (r.isError === true) return yield* Effect.dieMessage(`${name} failed: ${JSON.stringify(r)}`)
        return performance.now() - t0
      })
    for (let i = 0; i < 200; i++) { yield* time("bench_noop", { run_id: runId }); yield* time("agent_run_status", { run_id: runId }) }
    const noop: Array<number> = []
    const status: Array<number> = []
    for (let i = 0; i < calls; i++) {
      noop.push(yield* time("bench_noop", { run_id: runId }))
      status.push(yield* time("agent_run_status", { run_id: runId }))
    }
    yield* Effect.promise(() => client.close())
    yield* Effect.promise(() => runtime.dispose())
    return { noopP50: percentile(noop, 0.5), noopP99: percentile(noop, 0.99), statusP50: percentile(status, 0.5), statusP99: percentile(status, 0.99) }
  })

/**
 * Runs phase `name` of the script `self` in a child process (its CPU and peak RSS its own) and
 * returns the JSON object the child printed last; a failed child ends the benchmark with its stderr.
 */
export const runPhaseChild = (self: string, name: string, env: NodeJS.ProcessEnv = process.env): any => {
  const child = spawnSync(process.execPath, [...process.execArgv, self, name, ...process.argv.slice(2)], {
    encoding: "utf8",
    maxBuffer: 64 * 2 ** 20,
    env: { ...env, EFFECT_LOG_LEVEL: "None" }
  })
  const line = child.stdout.trim().split("\n").reverse().find((l) => l.startsWith("{"))
  if (child.status !== 0 || line === undefined) {
    process.stderr.write(child.stderr.slice(-4000))
    throw new Error(`phase ${name} failed (exit ${child.status})`)
  }
  return JSON.parse(line)
}

/** In a phase's child (`argv[2]` names one of `phases`): runs it, prints its result as JSON and exits. */
export const runAskedPhase = async (phases: Record<string, Effect.Effect<unknown, unknown>>): Promise<void> => {
  const phase = process.argv[2]
  if (phase === undefined || !(phase in phases)) return
  // Every phase runs as the daemon does, without tracing spans (src/daemon/tracing.ts): the bridge's
  // arms measure the product, and the baselines (the simulator, a direct follow) lose the same.
  const exit = await Effect.runPromiseExit(Effect.withTracerEnabled(phases[phase]!, false))
  if (Exit.isFailure(exit)) {
    process.stderr.write(String(exit.cause))
    process.exit(1)
  }
  process.stdout.write(`${JSON.stringify(exit.value)}\n`)
  process.exit(0)
}
