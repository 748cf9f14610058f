/**
 * `npm run bench`: every benchmark of the project, one after another, each in its own process, then
 * one summary table of ratios against baselines measured in the same run.
 *
 * - bench-redactor:  the Redactor vs one alternation regex (issue 3)
 * - bench-keys:      the Redactor with 10 and 200 client keys registered vs none (issue 23)
 * - bench-hermes:    HermesClient vs plain fetch against the simulator (issue 4)
 * - bench-runs:      run tools and streaming through the bridge vs direct (issue 5)
 * - bench-coldstart: process start to /healthz vs a bare `node -e` http server (issue 9)
 * - bench-memory:    the daemon's RSS idle and under 16 in flight vs the same-SDK bare server (issue 28)
 * - bench-mcp:       a tool call over MCP in both protocol eras vs a bare node:http JSON echo
 * - bench-sim-memory: the simulator's heap after many runs, bounded vs keeping every run (issue 13)
 * - bench-storage:   the bridge on PostgreSQL vs the same bridge on SQLite (issue 24)
 * - bench-replicas:  1 vs 2 vs 3 replicas behind nginx: status calls/s, failover on SIGKILL (issue 25)
 * - bench-queue:     200 runs by 20 clients through Hermes's cap of 10 vs the ideal; a queued start's answer vs an admitted one's (issue 38)
 * - bench-idle:      the daemon's CPU per second with nothing to do: no client, an idle 2025 session,
 *                    an idle console page; as a PostgreSQL replica, with the cluster's clock below the
 *                    bridge beside it (bench-cluster-floor's arms) (issue 41)
 * - bench-start-counts: the SQLite time of a start's counts with a history of ended runs, with and
 *                    without migration 0017's partial indexes (issue 41)
 * - bench-stream-floor: what holding one Hermes event stream open costs a process (undici alone, with a
 *                    fiber, through Effect's HTTP client with and without its response stream), the
 *                    floor under the bridge's memory per live run (issue 41)
 * - bench-mcp-hot:   (as `percall`) the server's CPU per MCP call, `agent_run_status` and `agents_list`,
 *                    against the same SDK's bare echo in both eras, each a process of its own (issue 41)
 * - bench-ledger-write: one streamed batch's ledger write, against the same statements through
 *                    @effect/sql alone and through better-sqlite3 alone: what is below the bridge (issue 41)
 * - bench-scale:     10,000 live runs from 100 clients on SQLite, then on PostgreSQL with 3 replicas
 *                    (issue 41); about 15 minutes, so only when named (BENCH_ONLY=scale; `npm run
 *                    bench:scale` alone, `.ci/run` runs it with `--size small`)
 *
 * Each script prints its own figures and ends with a `BENCH_JSON {bench, rows[]}` line; a row is
 * `{metric, value, baseline, baselineName, goal?, noRatio?, client?}`, and its ratio is value / baseline
 * (lower is better: every row is a time, a size or a count).
 *
 * BENCH_QUICK=1 runs each with small sizes (a smoke test of the plumbing, figures meaningless).
 * BENCH_ONLY=redactor,coldstart runs a subset.
 */
import { spawn } from "node:child_process"
import * as os from "node:os"
import * as path from "node:path"

const QUICK = process.env["BENCH_QUICK"] === "1"
const ONLY = process.env["BENCH_ONLY"]?.split(",").map((s) => s.trim()).filter((s) => s !== "")
const HERE = import.meta.dirname

interface Bench {
  readonly name: string
  readonly script: string
  readonly args: ReadonlyArray<string>
  readonly quickArgs: ReadonlyArray<string>
  /** Extra node options (before the script). */
  readonly nodeArgs?: ReadonlyArray<string>
  /** Long: runs only when BENCH_ONLY names it. */
  readonly optIn?: boolean
}

const BENCHES: ReadonlyArray<Bench> = [
  { name: "redactor", script: "bench-redactor.ts", args: [], quickArgs: ["1", "2"] },
  { name: "keys", script: "bench-keys.ts", args: [], quickArgs: ["1", "2"] },
  { name: "hermes", script: "bench-hermes.ts", args: [], quickArgs: ["2000", "20"] },
  { name: "queue", script: "bench-queue.ts", args: [], quickArgs: ["--runs", "40", "--clients", "8", "--run-ms", "300", "--starts", "10"] },
  { name: "runs", script: "bench-runs.ts", args: [], quickArgs: ["--runs", "20", "--deltas", "50", "--calls", "100", "--pace", "1"] },
  { name: "coldstart", script: "bench-coldstart.ts", args: [], quickArgs: ["1"] },
  { name: "memory", script: "bench-memory.ts", args: [], quickArgs: ["1", "200"] },
  { name: "mcp", script: "bench-mcp.ts", args: [], quickArgs: ["50"] },
  { name: "sim-memory", script: "bench-sim-memory.ts", args: [], quickArgs: ["40", "4k"], nodeArgs: ["--expose-gc"] },
  { name: "storage", script: "bench-storage.ts", args: [], quickArgs: ["--runs", "20", "--deltas", "50", "--calls", "100", "--pace", "1", "--notes", "200", "--searches", "100"] },
  { name: "replicas", script: "bench-replicas.ts", args: [], quickArgs: ["--sizes", "1,2", "--seconds", "1", "--kills", "1", "--failover-sizes", "2"] },
  { name: "idle", script: "bench-idle.ts", args: ["30"], quickArgs: ["5"] },
  { name: "start-counts", script: "bench-start-counts.ts", args: [], quickArgs: ["300", "3000"] },
  { name: "stream-floor", script: "bench-stream-floor.ts", args: [], quickArgs: ["200"] },
  { name: "percall", script: "bench-mcp-hot.ts", args: ["50", "200", "6"], quickArgs: ["10", "32", "1"] },
  { name: "ledger-write", script: "bench-ledger-write.ts", args: ["20", "3"], quickArgs: ["2", "1"] },
  { name: "scale", script: "bench-scale.ts", args: [], quickArgs: ["--size", "small", "--runs", "60", "--clients", "4", "--seconds", "5", "--pace-s", "5"], optIn: true }
]

interface Row {
  readonly metric: string
  readonly value: number
  readonly baseline: number
  readonly baselineName: string
  readonly goal?: string
  readonly noRatio?: boolean
  /** The client the row was measured with, where the script names it. */
  readonly client?: string
}

interface Outcome {
  readonly bench: string
  readonly rows: ReadonlyArray<Row>
  readonly seconds: number
  readonly error?: string
}

const MARK = "BENCH_JSON "

/** Runs one script under the same tsx loader, echoing its output; resolves with its BENCH_JSON rows. */
const run = (b: Bench): Promise<Outcome> =>
  new Promise((resolve) => {
    const t0 = performance.now()
    const args = QUICK ? b.quickArgs : b.args
    console.log(`\n== ${b.name}: ${b.script} ${args.join(" ")}`)
    const child = spawn(process.execPath, [...process.execArgv, ...(b.nodeArgs ?? []), path.join(HERE, b.script), ...args], {
      env: { ...process.env, EFFECT_LOG_LEVEL: process.env["EFFECT_LOG_LEVEL"] ?? "None" },
      stdio: ["ignore", "pipe", "inherit"]
    })
    let buffered = ""
    let json: string | undefined
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8")
      const lines = buffered.split("\n")
      buffered = lines.pop() ?? ""
      for (const line of lines) {
        if (line.startsWith(MARK)) json = line.slice(MARK.length)
        else console.log(`   ${line}`)
      }
    })
    child.on("close", (code) => {
      if (buffered.startsWith(MARK)) json = buffered.slice(MARK.length)
      const seconds = (performance.now() - t0) / 1000
      if (code !== 0 || json === undefined) {
        resolve({ bench: b.name, rows: [], seconds, error: code !== 0 ? `exit code ${code}` : "no BENCH_JSON line" })
        return
      }
      const parsed = JSON.parse(json) as { bench: string; rows: ReadonlyArray<Row> }
      resolve({ bench: b.name, rows: parsed.rows, seconds })
    })
  })

const num = (x: number): string =>
  !Number.isFinite(x) || Number.isInteger(x) ? String(x) : Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2)

const ratio = (r: Row): string => (r.noRatio === true || r.baseline === 0 ? "–" : `${(r.value / r.baseline).toFixed(2)}×`)

/** The summary as a Markdown table (readable as is, and pasted into docs/PERFORMANCE.md). */
export const summaryTable = (outcomes: ReadonlyArray<Outcome>): string => {
  const header = ["benchmark", "metric", "value", "baseline", "ratio", "goal", "baseline is"]
  const lines = [`| ${header.join(" | ")} |`, `|${header.map(() => " --- ").join("|")}|`]
  for (const o of outcomes) {
    if (o.error !== undefined) lines.push(`| ${o.bench} | FAILED: ${o.error} | | | | | |`)
    for (const r of o.rows) {
      lines.push(`| ${o.bench} | ${r.metric} | ${num(r.value)} | ${num(r.baseline)} | ${ratio(r)} | ${r.goal ?? ""} | ${r.baselineName} |`)
    }
  }
  return lines.join("\n")
}

const main = async () => {
  const selected = BENCHES.filter((b) => (ONLY === undefined ? b.optIn !== true : ONLY.includes(b.name)))
  const started = new Date()
  const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? "?"}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, node ${process.version}, ${os.platform()} ${os.release()}`
  console.log(`agent-bridge benchmarks${QUICK ? " (BENCH_QUICK: smoke sizes, figures meaningless)" : ""}\n${started.toISOString()} — ${machine}; load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`)
  const outcomes: Array<Outcome> = []
  for (const b of selected) outcomes.push(await run(b))
  console.log(`\n== summary (${started.toISOString().slice(0, 10)}, ${machine}; load average at the end ${os.loadavg()[0]!.toFixed(1)})`)
  console.log("ratio = value / baseline, both measured in this run; lower is better\n")
  console.log(summaryTable(outcomes))
  const clients = outcomes.flatMap((o) => [...new Set(o.rows.flatMap((r) => (r.client === undefined ? [] : [r.client])))].map((c) => `${o.bench}: ${c}`))
  if (clients.length > 0) console.log(`\nclients: ${clients.join("; ")}`)
  console.log(`\n${outcomes.map((o) => `${o.bench} ${o.seconds.toFixed(0)} s`).join(", ")}`)
  if (outcomes.some((o) => o.error !== undefined)) process.exitCode = 1
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.join(HERE, "bench.ts")) await main()
