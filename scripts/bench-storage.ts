/**
 * The bridge on PostgreSQL vs the same bridge on SQLite (issue 24 item 7). Run:
 * `npx tsx scripts/bench-storage.ts` (options: `--runs 500`, `--deltas 200`, `--calls 2000`,
 * `--notes 5000`, `--searches 2000`, `--phases memory` for a subset). It starts a throwaway PostgreSQL on loopback (Debian's
 * binaries, test/support/pgServer.ts), and each phase runs in its own child process against either
 * a fresh SQLite data dir or a fresh database on that server; every figure is PostgreSQL's over
 * SQLite's in the same run:
 *
 * - status: p50/p99 of `agent_run_status` on a finished run over real HTTP (goal p50 ≤ 1.5×);
 * - stream: 500 paced runs streamed through follower → ledger → waits, wall time and events lost
 *   (goal ≤ 1.3×, 0 lost);
 * - memory: p50 of a memory search over `--notes` notes (goal ≤ 2×).
 */
import { Effect, Layer } from "effect"
import * as os from "node:os"
import { fileURLToPath } from "node:url"
import type { ResolvedConfig } from "../src/config/load.ts"
import { MemoryStore } from "../src/services/memory/MemoryStore.ts"
import { MemoryStoreLive } from "../src/services/memory/MemoryStoreLive.ts"
import { DbForStores } from "../src/storage/Db.ts"
import { startPostgres } from "../test/support/pgServer.ts"
import { percentile, runAskedPhase, runPhaseChild, statusLatency, streamBridge, tempConfig } from "./benchRunParts.ts"

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}
const shape = { runs: arg("runs", 500), deltas: arg("deltas", 200), paceS: arg("pace", 10) }
const CALLS = arg("calls", 2000)
const NOTES = arg("notes", 5000)
const SEARCHES = arg("searches", 2000)
/** `--phases memory,status`: only those phases (a row per phase run); all three by default. */
const PHASES = (() => {
  const i = process.argv.indexOf("--phases")
  return new Set(i >= 0 ? (process.argv[i + 1] ?? "").split(",") : ["status", "stream", "memory"])
})()

/** The phase's store: the database named in BENCH_STORAGE_URL, else a fresh SQLite data dir. */
const config = (): ResolvedConfig => {
  const url = process.env["BENCH_STORAGE_URL"]
  return tempConfig(url === undefined ? {} : { AGENT_BRIDGE_STORAGE_URL: url })
}

/**
 * A small vocabulary of 25 words, a note holding seven of them: each word is in about a fifth of the
 * notes, so a search matches and ranks 1,000 to 2,000 of the 5,000 (the phrase query none): a
 * heavier case than a real memory's few dozen matches.
 */
const WORDS = "deploy build cache index query router token budget schema migrate rollback replica shard backup restore metric alert trace span queue worker lease retry timeout socket"
  .split(" ")
const word = (i: number, k: number) => WORDS[(i * 7 + k * 13 + ((i * k) % 11)) % WORDS.length]!

const memorySearch = Effect.gen(function* () {
  const memory = yield* MemoryStore
  for (let i = 0; i < NOTES; i++) {
    const text = `note ${i}: ${word(i, 1)} ${word(i, 2)} ${word(i, 3)} then ${word(i, 4)} the ${word(i, 5)} service`
    yield* memory.add({ namespace: "bench", text, tags: [word(i, 6)], client: "bench" })
  }
  const queries = [`${WORDS[0]} ${WORDS[3]}`, `"${WORDS[4]} ${WORDS[5]}"`, `${WORDS[8]!.slice(0, 3)}*`, `${WORDS[10]}`]
  const times: Array<number> = []
  for (let i = 0; i < SEARCHES + 100; i++) {
    const t0 = performance.now()
    yield* memory.search({ namespaces: ["bench"], query: queries[i % queries.length]!, limit: 10 })
    if (i >= 100) times.push(performance.now() - t0)
  }
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) }
}).pipe(Effect.provide(MemoryStoreLive.pipe(Layer.provide(Layer.suspend(() => DbForStores(config()))))))

const phases: Record<string, Effect.Effect<unknown, unknown>> = {
  status: Effect.suspend(() => statusLatency(CALLS, config())),
  stream: Effect.suspend(() => streamBridge(shape, config())),
  memory: memorySearch
}

const runPhase = (name: string, storageUrl?: string): any => {
  const env: NodeJS.ProcessEnv = { ...process.env }
  if (storageUrl === undefined) delete env["BENCH_STORAGE_URL"]
  else env["BENCH_STORAGE_URL"] = storageUrl
  return runPhaseChild(fileURLToPath(import.meta.url), name, env)
}

await runAskedPhase(phases)
{
  const f = (n: number, d = 2) => n.toFixed(d)
  console.log(`bench-storage: SQLite vs PostgreSQL on loopback; ${shape.runs} runs × ${shape.deltas} deltas over ${shape.paceS} s, ${CALLS} status calls, ${SEARCHES} searches over ${NOTES} notes (node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)})`)
  const server = await startPostgres()
  try {
    const db = () => server.createDatabase()
    // Each arm in turn, SQLite first; a fresh store for every phase.
    const on = "the same call on SQLite, same run"
    const rows: Array<Record<string, unknown>> = []
    if (PHASES.has("status")) {
      const s = { sqlite: runPhase("status"), pg: runPhase("status", await db()) }
      console.log(`status   agent_run_status p50 SQLite ${f(s.sqlite.statusP50)} ms, PostgreSQL ${f(s.pg.statusP50)} ms (${f(s.pg.statusP50 / s.sqlite.statusP50)}×, goal ≤ 1.5×); p99 ${f(s.sqlite.statusP99)} / ${f(s.pg.statusP99)} ms`)
      rows.push(
        { metric: "agent_run_status p50 on PostgreSQL (ms)", value: s.pg.statusP50, baseline: s.sqlite.statusP50, baselineName: on, goal: "≤ 1.5×" },
        { metric: "agent_run_status p99 on PostgreSQL (ms)", value: s.pg.statusP99, baseline: s.sqlite.statusP99, baselineName: on }
      )
    }
    if (PHASES.has("stream")) {
      const t = { sqlite: runPhase("stream"), pg: runPhase("stream", await db()) }
      console.log(`stream   ${t.pg.runs} runs: wall SQLite ${f(t.sqlite.wallMs, 0)} ms, PostgreSQL ${f(t.pg.wallMs, 0)} ms (${f(t.pg.wallMs / t.sqlite.wallMs)}×, goal ≤ 1.3×); runs with loss ${t.sqlite.runsWithLoss} / ${t.pg.runsWithLoss} (goal 0)`)
      rows.push(
        { metric: `${t.pg.runs} runs streamed on PostgreSQL, wall (ms)`, value: t.pg.wallMs, baseline: t.sqlite.wallMs, baselineName: "the same runs on SQLite, same run", goal: "≤ 1.3×" },
        { metric: "runs with lost events on PostgreSQL", value: t.pg.runsWithLoss, baseline: t.sqlite.runsWithLoss, baselineName: "the same runs on SQLite", goal: "0", noRatio: true }
      )
    }
    if (PHASES.has("memory")) {
      const m = { sqlite: runPhase("memory"), pg: runPhase("memory", await db()) }
      console.log(`memory   search p50 SQLite ${f(m.sqlite.p50)} ms, PostgreSQL ${f(m.pg.p50)} ms (${f(m.pg.p50 / m.sqlite.p50)}×, goal ≤ 2×); p99 ${f(m.sqlite.p99)} / ${f(m.pg.p99)} ms`)
      rows.push({ metric: `memory search p50 on PostgreSQL (ms), ${NOTES} notes`, value: m.pg.p50, baseline: m.sqlite.p50, baselineName: "the same searches on SQLite, same run", goal: "≤ 2×" })
    }
    console.log(`BENCH_JSON ${JSON.stringify({ bench: "storage", rows })}`)
  } finally {
    await server.stop()
  }
}
