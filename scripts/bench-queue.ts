/**
 * The run queue in front of Hermes's capacity (issue 38). Run: `npx tsx scripts/bench-queue.ts`
 * (options: `--runs 200`, `--clients 20`, `--cap 10`, `--run-ms 1000`, `--starts 30`).
 *
 * - drain: `--runs` runs started at once by `--clients` clients against the simulator with a cap of
 *   `--cap` (the bridge's `hermes.max_concurrent_runs` the same), each run `--run-ms` long: the wall
 *   time from the first start to the last run's end against the ideal (runs × run length ÷ cap),
 *   goal ≤ 1.15×; and the spread of the clients' finishing times (last client's last run minus the
 *   first client's last run), against the ideal.
 * - answer: a start answered `queued` against one admitted at once (each the median of `--starts`
 *   sequential starts on a fresh bridge), goal ≤ 1.2×.
 *
 * Figures only: nothing here is asserted.
 */
import { Context, Effect, Layer } from "effect"
import { HermesClient } from "../src/hermes/client/HermesClient.ts"
import { SimulatedHermes } from "../src/hermes/sim/layer.ts"
import { Caller } from "../src/request/Caller.ts"
import { Progress } from "../src/request/Progress.ts"
import { bridgeOver, settle, tempConfig } from "./benchRunParts.ts"

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}
const RUNS = arg("runs", 200)
const CLIENTS = arg("clients", 20)
const CAP = arg("cap", 10)
const RUN_MS = arg("run-ms", 1000)
const STARTS = arg("starts", 30)

const as = (client: string) => <A, E, R>(e: Effect.Effect<A, E, R>) =>
  e.pipe(Effect.provideService(Caller, Caller.client(client)), Effect.provideService(Progress, { enabled: false, report: () => Effect.void }))

const bridge = Effect.gen(function* () {
  const scope = yield* Effect.scope
  const hermes = yield* Layer.buildWithScope(SimulatedHermes({ maxConcurrentRuns: CAP, keepaliveMs: 60_000 }), scope)
  const config = tempConfig({
    AGENT_BRIDGE_HERMES_MAX_CONCURRENT_RUNS: String(CAP),
    AGENT_BRIDGE_BRIDGE_MAX_CONCURRENT_RUNS_PER_CLIENT: String(CAP),
    AGENT_BRIDGE_BRIDGE_MAX_QUEUED_RUNS_PER_CLIENT: String(Math.max(16, Math.ceil(RUNS / CLIENTS) + STARTS))
  })
  return yield* bridgeOver(config, Context.get(hermes, HermesClient))
})

const drain = Effect.gen(function* () {
  const b = yield* bridge
  yield* settle()
  const t0 = performance.now()
  const finished = yield* Effect.forEach(Array.from({ length: RUNS }, (_, i) => i), (i) => {
    const client = `client-${i % CLIENTS}`
    return as(client)(Effect.gen(function* () {
      const view = yield* b.runs.start({ agent: "hermes", input: `[sim:slow=${RUN_MS}ms] task ${i}` })
      const done = yield* b.runs.wait(view.run_id, 600)
      if (done.status !== "completed") return yield* Effect.dieMessage(`run ${i} ended ${done.status}`)
      return { client, at: performance.now() - t0 }
    }))
  }, { concurrency: "unbounded" })
  const wallMs = performance.now() - t0
  const lastOf = new Map<string, number>()
  for (const f of finished) lastOf.set(f.client, Math.max(lastOf.get(f.client) ?? 0, f.at))
  const lasts = [...lastOf.values()]
  return { wallMs, spreadMs: Math.max(...lasts) - Math.min(...lasts), firstDoneMs: Math.min(...lasts), lastDoneMs: Math.max(...lasts) }
}).pipe(Effect.scoped)

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const answers = Effect.gen(function* () {
  const b = yield* bridge
  yield* settle()
  const timed = (client: string, i: number) =>
    Effect.gen(function* () {
      const t0 = performance.now()
      const view = yield* as(client)(b.runs.start({ agent: "hermes", input: `[sim:slow=600s] answer ${client} ${i}` }))
      return { ms: performance.now() - t0, status: view.status }
    })
  // Warm-up: the first start of a process pays for loading code.
  yield* timed("warm", 0)
  const admitted: Array<number> = []
  const queued: Array<number> = []
  // Admitted at once while slots are free, then queued: alternate rounds so both see the same ledger size.
  for (let i = 0; i < STARTS; i++) {
    const r = yield* timed(`admitted-${i % CAP}`, i)
    ;(r.status === "queued" ? queued : admitted).push(r.ms)
    if (admitted.length >= CAP - 1) break
  }
  for (let i = 0; i < STARTS; i++) {
    const r = yield* timed(`queued-${i % CLIENTS}`, i)
    ;(r.status === "queued" ? queued : admitted).push(r.ms)
  }
  return { admittedMs: median(admitted), queuedMs: median(queued), admitted: admitted.length, queued: queued.length }
}).pipe(Effect.scoped)

const program = Effect.gen(function* () {
  const d = yield* drain
  const ideal = (RUNS * RUN_MS) / CAP
  console.log(`drain:  ${RUNS} runs of ${RUN_MS} ms by ${CLIENTS} clients, cap ${CAP}: ${d.wallMs.toFixed(0)} ms vs ideal ${ideal.toFixed(0)} ms (${(d.wallMs / ideal).toFixed(3)}×, goal ≤ 1.15×)`)
  console.log(`        clients' last runs ended between ${d.firstDoneMs.toFixed(0)} and ${d.lastDoneMs.toFixed(0)} ms: spread ${d.spreadMs.toFixed(0)} ms (${(d.spreadMs / ideal).toFixed(3)}× the ideal)`)
  const a = yield* answers
  console.log(`answer: start answered queued ${a.queuedMs.toFixed(2)} ms vs admitted ${a.admittedMs.toFixed(2)} ms (medians of ${a.queued} and ${a.admitted}): ${(a.queuedMs / a.admittedMs).toFixed(3)}×, goal ≤ 1.2×`)
  console.log(`BENCH_JSON ${JSON.stringify({
    bench: "queue",
    rows: [
      { metric: `${RUNS} runs by ${CLIENTS} clients through a cap of ${CAP}: wall (ms)`, value: d.wallMs, baseline: ideal, baselineName: "runs × run length ÷ cap", goal: "≤ 1.15×" },
      { metric: "spread of the clients' finishing times (ms)", value: d.spreadMs, baseline: ideal, baselineName: "the ideal wall time", noRatio: true },
      { metric: "a start answered queued (ms, median)", value: a.queuedMs, baseline: a.admittedMs, baselineName: "a start admitted at once", goal: "≤ 1.2×" }
    ]
  })}`)
})

Effect.runPromise(program).catch((e) => {
  console.error(e)
  process.exitCode = 1
})
