/**
 * HermesClient overhead against the simulator (issue 4), as ratios to a baseline measured in the
 * same run: the same HTTP exchanges made with plain `fetch`, the body split on blank lines and
 * JSON-parsed by hand (no reconnect logic, no typed errors, no SSE decoder).
 *
 * - stream: one run of N events (newer build) read with `follow` vs the baseline; events/s.
 * - runs:   M default runs, one after another, each started and followed to its end; runs/s.
 *
 *   npx tsx scripts/bench-hermes.ts [events=20000] [runs=200]
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Effect, Stream } from "effect"
import { makeHermesClient } from "../src/hermes/client/HermesClientLive.ts"
import { simulatorProfiles } from "../src/hermes/embedded.ts"
import { startSimulator } from "../src/hermes/sim/server.ts"

const EVENTS = Number(process.argv[2] ?? 20_000)
const RUNS = Number(process.argv[3] ?? 200)

const program = Effect.gen(function* () {
  const sim = yield* startSimulator({ generation: "new", maxConcurrentRuns: 1000, speed: 1000 })
  const hermes = yield* makeHermesClient(simulatorProfiles(sim))
  const p = hermes.profiles[0]!
  const key = sim.profile("default").key
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" }

  /** The baseline: start with fetch, read the events body to EOF, split and parse by hand. */
  const rawRun = (input: string) =>
    Effect.promise(async () => {
      const start = await fetch(`${sim.url}/v1/runs`, { method: "POST", headers, body: JSON.stringify({ input }) })
      const { run_id } = (await start.json()) as { run_id: string }
      const res = await fetch(`${sim.url}/v1/runs/${run_id}/events`, { headers })
      const text = await res.text()
      let n = 0
      for (const block of text.split("\n\n")) {
        const data = block.split("\n").find((l) => l.startsWith("data: "))
        if (data !== undefined && JSON.parse(data.slice(6)).event !== undefined) n++
      }
      return n
    })
  const clientRun = (input: string) =>
    Effect.flatMap(hermes.start(p, { input }), (s) => Stream.runCount(hermes.follow(p, s.hermesRunId)))

  const time = <A, E>(eff: Effect.Effect<A, E>) =>
    Effect.gen(function* () {
      const t0 = performance.now()
      const a = yield* eff
      return { a, ms: performance.now() - t0 }
    })

  // Warm both paths up (JIT, connection pools, feature cache).
  yield* Effect.forEach([1, 2, 3], () => Effect.zip(rawRun("warm"), clientRun("warm")), { discard: true })

  const input = `[sim:events=${EVENTS}]`
  const raw = yield* time(rawRun(input))
  const client = yield* time(clientRun(input))
  if (raw.a !== EVENTS || client.a !== EVENTS) throw new Error(`event counts differ: raw ${raw.a}, client ${client.a}`)
  const rawRate = EVENTS / (raw.ms / 1000)
  const clientRate = EVENTS / (client.ms / 1000)

  const rawRuns = yield* time(Effect.forEach(Array.from({ length: RUNS }), () => rawRun("hello"), { discard: true }))
  const clientRuns = yield* time(Effect.forEach(Array.from({ length: RUNS }), () => clientRun("hello"), { discard: true }))

  const f = (x: number) => x.toFixed(0)
  console.log(`stream: ${EVENTS} events — baseline ${f(rawRate)} ev/s, HermesClient.follow ${f(clientRate)} ev/s; follow takes ${(client.ms / raw.ms).toFixed(2)}× the baseline's time`)
  console.log(`runs:   ${RUNS} runs — baseline ${(RUNS / (rawRuns.ms / 1000)).toFixed(1)} runs/s, HermesClient ${(RUNS / (clientRuns.ms / 1000)).toFixed(1)} runs/s; ${(clientRuns.ms / rawRuns.ms).toFixed(2)}× the baseline's time`)
  // For scripts/bench.ts: one machine-readable line, last.
  console.log(`BENCH_JSON ${JSON.stringify({
    bench: "hermes",
    rows: [
      { metric: `follow one run of ${EVENTS} events (ms)`, value: client.ms, baseline: raw.ms, baselineName: "fetch + split + JSON.parse" },
      { metric: `${RUNS} runs started and followed (ms)`, value: clientRuns.ms, baseline: rawRuns.ms, baselineName: "fetch + split + JSON.parse" }
    ]
  })}`)
})

Effect.runPromise(Effect.scoped(program).pipe(Effect.provide(NodeHttpClient.dispatcherLayer))).catch((e) => {
  console.error(e)
  process.exitCode = 1
})
