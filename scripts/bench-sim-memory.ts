/**
 * What the built-in simulator holds after many runs, with its bounds (the defaults: at most 500
 * ended runs, an ended run's unread buffer dropped 300 s after its end) against the same simulator
 * keeping every run, as it did before the bounds (within Hermes's hour nothing was forgotten).
 * Both are measured in this process, one after the other, on the same runs: N runs of SIZE output
 * each, started over HTTP and read to their end, as the bridge's follower reads them. The figure is
 * the heap that stays after a full GC, over the heap before the simulator started.
 *
 *   node --expose-gc --import tsx scripts/bench-sim-memory.ts [runs=1600] [size=16k]
 */
import { Effect, Scope, Exit } from "effect"
import { startSimulator } from "../src/hermes/sim/server.ts"
import type { SimOptions } from "../src/hermes/sim/options.ts"

const RUNS = Number(process.argv[2] ?? 1600)
const SIZE = process.argv[3] ?? "16k"
const CONCURRENCY = 8

const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) throw new Error("run with node --expose-gc")
const heapAfterGc = () => {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

/** Heap the simulator keeps after RUNS runs, in bytes. */
const measure = async (options: SimOptions, runs = RUNS): Promise<{ heap: number; runsKept: number; seconds: number }> => {
  const before = heapAfterGc()
  const scope = Effect.runSync(Scope.make())
  const sim = await Effect.runPromise(startSimulator({ generation: "new", maxConcurrentRuns: 100, speed: 1000, ...options }).pipe(Scope.extend(scope)))
  const headers = { authorization: `Bearer ${sim.profile("default").key}`, "content-type": "application/json" }
  const t0 = performance.now()
  let next = 0
  const worker = async () => {
    while (next < runs) {
      const i = next++
      const start = await fetch(`${sim.url}/v1/runs`, { method: "POST", headers, body: JSON.stringify({ input: `run ${i} [sim:output=${SIZE}]` }) })
      const { run_id } = (await start.json()) as { run_id: string }
      await (await fetch(`${sim.url}/v1/runs/${run_id}/events`, { headers })).text()
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  const seconds = (performance.now() - t0) / 1000
  // One more lookup lets a due sweep run, as the next request to a long-lived simulator would.
  await new Promise((r) => setTimeout(r, 1100))
  await fetch(`${sim.url}/v1/runs/run_none`, { headers })
  const heap = heapAfterGc() - before
  const runsKept = sim.state.runs.size
  await Effect.runPromise(Scope.close(scope, Exit.void))
  return { heap, runsKept, seconds }
}

const mib = (b: number) => `${(b / 1048576).toFixed(1)} MiB`

const main = async () => {
  // One-time allocations (compiled code, the HTTP client's pools) must not count against the first.
  await measure({}, 20)
  const unbounded = await measure({ maxTerminalRuns: Number.MAX_SAFE_INTEGER, eventBufferTtlMs: Number.MAX_SAFE_INTEGER })
  const bounded = await measure({})
  console.log(`${RUNS} runs of ${SIZE} output each, read to the end (new build)`)
  console.log(`  every run kept (before): ${mib(unbounded.heap)} heap kept, ${unbounded.runsKept} runs (${unbounded.seconds.toFixed(1)} s)`)
  console.log(`  bounded (defaults):      ${mib(bounded.heap)} heap kept, ${bounded.runsKept} runs (${bounded.seconds.toFixed(1)} s), ratio ${(bounded.heap / unbounded.heap).toFixed(2)}×`)
  console.log(
    `BENCH_JSON ${JSON.stringify({
      bench: "sim-memory",
      rows: [{ metric: `simulator heap after ${RUNS} runs of ${SIZE}`, value: bounded.heap, baseline: unbounded.heap, baselineName: "every run kept" }]
    })}`
  )
}

await main()
