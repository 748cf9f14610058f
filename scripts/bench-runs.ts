/**
 * Run-service benchmark (issue 5). Run: `npx tsx scripts/bench-runs.ts` (options: `--runs 500`,
 * `--deltas 200`, `--calls 2000`). Each phase runs in its own child process, so CPU and peak RSS are
 * its own, and every figure is a ratio against a baseline measured in the same run:
 *
 * - status:  p50/p99 of `agent_run_status` vs a no-op tool on the same MCP server (real HTTP).
 * - stream:  500 concurrent runs × 200 deltas through the bridge (follower → ledger → waits) vs the
 *            same streams read straight from the simulator with the HermesClient; wall, CPU, peak RSS,
 *            and events lost (text the bridge stored vs what the simulator produced; must be 0). Each
 *            run's deltas are paced over `--pace` seconds (default 10) so that all runs are live at once.
 * - idle:    RSS per live run: 500 runs parked on an approval, followed by the bridge vs followed
 *            directly; the difference is what the bridge itself holds per live run.
 * - idle-external: the same parked runs followed by the bridge with the simulator in another
 *            process (scripts/benchIdleExternal.ts): the bridge's own RSS per live run, measured
 *            alone (goal ≤ 64 KiB), with the simulator's beside it; and (idle-external-follow) by
 *            its Hermes client's follow alone, no ledger: the follow's share of that.
 *
 * Except in idle-external, the simulator runs in the same process as what it feeds in both arms.
 */
import { Context, Effect, Layer, Schedule, Stream } from "effect"
import * as os from "node:os"
import { fileURLToPath } from "node:url"
import { HermesClient } from "../src/hermes/client/HermesClient.ts"
import { SimulatedHermes, Simulator } from "../src/hermes/sim/layer.ts"
import { idleExternal, SIM_SERVER_PHASE, serveSimulator } from "./benchIdleExternal.ts"
import { runAskedPhase, runPhaseChild, asBench, parkedFollowed, bridgeServices, measured, settle, simOptions, START_CONCURRENCY, statusLatency as statusLatencyOn, streamBridge as streamBridgeOn, streamInput, tempConfig } from "./benchRunParts.ts"

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}
const RUNS = arg("runs", 500)
const DELTAS = arg("deltas", 200)
const CALLS = arg("calls", 2000)
/** Each run's deltas are spread over this many seconds, so all runs are live at once. */
const PACE_S = arg("pace", 10)

const shape = { runs: RUNS, deltas: DELTAS, paceS: PACE_S }
const input = (i: number) => streamInput(shape, i)
const streamBridge = Effect.suspend(() => streamBridgeOn(shape, tempConfig()))

const streamDirect = Effect.gen(function* () {
  const scope = yield* Effect.scope
  const ctx = yield* Layer.buildWithScope(SimulatedHermes(simOptions), scope)
  const hermes = Context.get(ctx, HermesClient)
  const sim = Context.get(ctx, Simulator)
  const profile = yield* hermes.profile("hermes")
  const startPermit = yield* Effect.makeSemaphore(START_CONCURRENCY)
  yield* settle()
  const m = yield* measured(
    Effect.forEach(Array.from({ length: RUNS }, (_, i) => i), (i) =>
      Effect.gen(function* () {
        const started = yield* hermes.start(profile, { input: input(i) }).pipe(startPermit.withPermits(1))
        let text = ""
        let ended = false
        yield* hermes.follow(profile, started.hermesRunId).pipe(
          Stream.runForEach((e) => Effect.sync(() => {
            if (e.event === "message.delta") text += String(e.data["delta"] ?? "")
            if (e.event === "run.completed") ended = true
          }))
        )
        return { id: started.hermesRunId, text, ended }
      }),
      { concurrency: "unbounded" })
  )
  let lost = 0
  for (const r of m.value) if (!r.ended || (yield* sim.findRun(r.id)).pipe((o) => o._tag === "None" || o.value.output !== r.text)) lost += 1
  return { wallMs: m.wallMs, cpuMs: m.cpuMs, peakRssMb: m.peakRssMb, runsWithLoss: lost, runs: m.value.length }
}).pipe(Effect.scoped)

/** Runs parked on an approval: what holding them live costs, bridge-followed vs directly followed. */
const idle = (through: "bridge" | "direct") =>
  Effect.gen(function* () {
    const parked = (i: number) => `[sim:approval] parked ${i}`
    if (through === "bridge") {
      const b = yield* bridgeServices(tempConfig())
      yield* settle()
      const before = process.memoryUsage()
      yield* Effect.forEach(Array.from({ length: RUNS }, (_, i) => i), (i) => asBench(b.runs.start({ agent: "hermes", input: parked(i) })), { concurrency: 50 })
      // Every follower has recorded its approval request: all are live, waiting.
      yield* asBench(b.runs.list({ limit: 200, status: "running" })).pipe(
        Effect.repeat({ schedule: Schedule.spaced("100 millis"), until: (l) => l.runs.length === 0 }),
        Effect.zipRight(Effect.sleep("500 millis"))
      )
      yield* settle()
      const after = process.memoryUsage()
      return { rssPerRunKb: (after.rss - before.rss) / RUNS / 1024, heapPerRunKb: (after.heapUsed - before.heapUsed) / RUNS / 1024, followed: yield* b.supervisor.size }
    }
    const ctx = yield* Layer.buildWithScope(SimulatedHermes(simOptions), yield* Effect.scope)
    const hermes = Context.get(ctx, HermesClient)
    return yield* parkedFollowed(hermes, RUNS, (profile, id, onEvent) =>
      hermes.follow(profile, id).pipe(Stream.runForEach((e) => Effect.sync(() => onEvent(e))))
    )
  }).pipe(Effect.scoped)


const statusLatency = Effect.suspend(() => statusLatencyOn(CALLS, tempConfig()))

const phases: Record<string, Effect.Effect<unknown, unknown>> = {
  status: statusLatency,
  "stream-direct": streamDirect,
  "stream-bridge": streamBridge,
  "idle-direct": idle("direct"),
  "idle-bridge": idle("bridge"),
  "idle-external": Effect.suspend(() => idleExternal(fileURLToPath(import.meta.url), RUNS)),
  "idle-external-follow": Effect.suspend(() => idleExternal(fileURLToPath(import.meta.url), RUNS, "follow"))
}

const runPhase = (name: string): any => runPhaseChild(fileURLToPath(import.meta.url), name)

if (process.argv[2] === SIM_SERVER_PHASE) await serveSimulator()
await runAskedPhase(phases)
{
  const f = (n: number, d = 1) => n.toFixed(d)
  console.log(`bench-runs: ${RUNS} runs × ${DELTAS} deltas paced over ${PACE_S} s, ${CALLS} status calls (node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)})`)
  const s = runPhase("status")
  console.log(`status   agent_run_status p50 ${f(s.statusP50, 2)} ms  p99 ${f(s.statusP99, 2)} ms | no-op p50 ${f(s.noopP50, 2)} ms  p99 ${f(s.noopP99, 2)} ms | ratio p50 ${f(s.statusP50 / s.noopP50, 2)}×  p99 ${f(s.statusP99 / s.noopP99, 2)}×  (goal ≤ 1.3×)`)
  const d = runPhase("stream-direct")
  const b = runPhase("stream-bridge")
  console.log(`stream   direct: wall ${f(d.wallMs, 0)} ms  cpu ${f(d.cpuMs, 0)} ms  peak RSS ${f(d.peakRssMb)} MiB  runs with loss ${d.runsWithLoss}/${d.runs}`)
  console.log(`         bridge: wall ${f(b.wallMs, 0)} ms  cpu ${f(b.cpuMs, 0)} ms  peak RSS ${f(b.peakRssMb)} MiB  runs with loss ${b.runsWithLoss}/${b.runs}  text written in ${b.textBatches} batches (the CPU over following directly: ${f((b.cpuMs - d.cpuMs) * 1000 / b.textBatches, 0)} µs a batch)`)
  console.log(`         ratio:  wall ${f(b.wallMs / d.wallMs, 2)}×  cpu ${f(b.cpuMs / d.cpuMs, 2)}×  peak RSS ${f(b.peakRssMb / d.peakRssMb, 2)}×  (goal wall, CPU ≤ 1.2×; RSS ≤ 1.5×); events lost ${b.runsWithLoss} (goal 0)`)
  const id = runPhase("idle-direct")
  const ib = runPhase("idle-bridge")
  console.log(`idle     ${RUNS} live runs: direct ${f(id.rssPerRunKb)} KiB RSS/run (heap ${f(id.heapPerRunKb)}), bridge ${f(ib.rssPerRunKb)} KiB RSS/run (heap ${f(ib.heapPerRunKb)}), followed ${ib.followed}`)
  console.log(`         bridge's own cost per live run: ${f(ib.rssPerRunKb - id.rssPerRunKb)} KiB RSS, ${f(ib.heapPerRunKb - id.heapPerRunKb)} KiB heap (goal ≤ 64 KiB)`)
  const ie = runPhase("idle-external")
  console.log(`         simulator in another process: bridge ${f(ie.rssPerRunKb)} KiB RSS/run (heap ${f(ie.heapPerRunKb)}), followed ${ie.followed}; the simulator's process ${f(ie.simRssPerRunKb)} KiB RSS/run (goal: the bridge's ≤ 64 KiB)`)
  const ief = runPhase("idle-external-follow")
  console.log(`         of which the Hermes client's follow alone: ${f(ief.rssPerRunKb)} KiB RSS/run (heap ${f(ief.heapPerRunKb)}), followed ${ief.followed}`)
  // For scripts/bench.ts: one machine-readable line, last.
  console.log(`BENCH_JSON ${JSON.stringify({
    bench: "runs",
    rows: [
      { metric: "agent_run_status p50 (ms)", value: s.statusP50, baseline: s.noopP50, baselineName: "no-op tool, same MCP server", goal: "≤ 1.3×" },
      { metric: "agent_run_status p99 (ms)", value: s.statusP99, baseline: s.noopP99, baselineName: "no-op tool, same MCP server", goal: "≤ 1.3×" },
      { metric: `${b.runs} runs streamed, wall (ms)`, value: b.wallMs, baseline: d.wallMs, baselineName: "HermesClient straight from the simulator", goal: "≤ 1.2×" },
      { metric: `${b.runs} runs streamed, CPU (ms)`, value: b.cpuMs, baseline: d.cpuMs, baselineName: "HermesClient straight from the simulator", goal: "≤ 1.2×" },
      { metric: `${b.runs} runs streamed, peak RSS (MiB)`, value: b.peakRssMb, baseline: d.peakRssMb, baselineName: "HermesClient straight from the simulator", goal: "≤ 1.5×" },
      { metric: "runs with lost events", value: b.runsWithLoss, baseline: d.runsWithLoss, baselineName: "HermesClient straight from the simulator", goal: "0", noRatio: true },
      { metric: `RSS per live run (KiB), ${RUNS} parked runs`, value: ib.rssPerRunKb, baseline: id.rssPerRunKb, baselineName: "followed straight from the simulator" },
      // The baseline column holds the simulator's process's own figure, printed beside the bridge's, not a ratio's denominator.
      { metric: `bridge's own RSS per live run (KiB), simulator in another process`, value: ie.rssPerRunKb, baseline: ie.simRssPerRunKb, baselineName: "the simulator's process, per run (beside, no ratio)", goal: "≤ 64 KiB", noRatio: true }
    ]
  })}`)
}
