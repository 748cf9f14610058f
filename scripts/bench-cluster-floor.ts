/**
 * What an idle replica's clock costs below the bridge (issue 41, item 1: an idle replica ≤ 2 ms/s).
 * An idle replica wakes only for `@effect/cluster`'s own loops (`CLUSTER_TIMING`: the heartbeat
 * and shard-lock refresh, the assignments read, the message poll). This measures the same wakes
 * with less and less around them, each arm a bundled process of its own
 * (scripts/cluster-floor/arm.ts), side by side over the same windows, on one throwaway PostgreSQL:
 *
 * - `floor`: one timer a second, nothing else;
 * - `pg`: the cluster's idle statements at `CLUSTER_TIMING`, through node-postgres alone;
 * - `sql`: the same statements and times through `@effect/sql-pg` and Effect's schedules;
 * - `runner` ×2: the bridge's cluster runner with nothing else of the bridge (two, as a cluster).
 *
 * Prints each arm's CPU (utime + stime from /proc, ms per s) over two windows after a settle, each
 * against `floor` of the same window, and a `BENCH_JSON` line. Compare the runner's figure with an
 * idle bridge replica's (`scripts/bench-idle.ts --only-pg`): what the bridge adds is the
 * difference; what the runner costs is the library's at these timings.
 *
 *   npx tsx scripts/bench-cluster-floor.ts [window seconds=60]
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { buildBundle, ROOT } from "./build.ts"
import { cpuMs } from "./benchScaleParts.ts"
import { freeLoopbackPort } from "../test/support/freePort.ts"
import { type PgServer, startPostgres } from "../test/support/pgServer.ts"

const WINDOW_S = Number(process.argv[2] ?? 60)
/** Start-up's work and V8's memory reducer (about a minute after start) stay out of the windows. */
const SETTLE_MS = WINDOW_S >= 30 ? 75_000 : 5000
const OUT_DIR = path.join(ROOT, "test-artifacts", "cluster-floor")
const ARMS = ["floor", "pg", "sql", "runner", "runner"] as const

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const startArm = async (bundle: string, mode: string, url: string) => {
  const args = [bundle, mode, url, ...(mode === "runner" ? [String(await freeLoopbackPort())] : [])]
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, EFFECT_LOG_LEVEL: "None" }, stdio: ["ignore", "pipe", "pipe"] })
  let out = ""
  const collect = (c: Buffer) => void (out = (out + c.toString()).slice(-4000))
  child.stdout.on("data", collect)
  child.stderr.on("data", collect)
  const t0 = Date.now()
  while (!out.includes("ARM_READY")) {
    if (child.exitCode !== null) throw new Error(`arm ${mode} exited (${child.exitCode}): ${out}`)
    if (Date.now() - t0 > 60_000) throw new Error(`arm ${mode} not ready within 60 s: ${out}`)
    await sleep(100)
  }
  return child
}

/** The arms, started and ready (the two runners on one database, each other arm on its own). */
export const startFloorArms = async (pg: PgServer) => {
  const { file: bundle } = await buildBundle(OUT_DIR, path.join(ROOT, "scripts", "cluster-floor", "arm.ts"))
  const children: Array<ReturnType<typeof spawn>> = []
  const stop = () => {
    for (const c of children) if (c.exitCode === null) c.kill("SIGTERM")
    fs.rmSync(OUT_DIR, { recursive: true, force: true })
  }
  try {
    const clusterDb = await pg.createDatabase()
    for (const mode of ARMS) children.push(await startArm(bundle, mode, mode === "runner" ? clusterDb : await pg.createDatabase()))
  } catch (e) {
    stop()
    throw e
  }
  return { pids: children.map((c) => c.pid!), stop }
}

/** One window's figures of the arms (`ms`: each arm's ms/s, in `ARMS` order), as lines and rows. */
export const floorReport = (ms: ReadonlyArray<number>, label: string) => {
  const [floor, rawPg, effectSql, ...runners] = ms as [number, number, number, ...Array<number>]
  const f = (n: number) => n.toFixed(2).padStart(6)
  const lines = [
    `  one timer a second                               ${f(floor)}`,
    `  the cluster's idle statements, node-postgres     ${f(rawPg)}`,
    `  the same, @effect/sql-pg and Effect's schedules  ${f(effectSql)}`,
    `  the bridge's cluster runner alone (of 2, each)   ${runners.map(f).join(" ")}   goal of a whole replica ≤ 2`
  ]
  const base = { baseline: floor, baselineName: "one timer a second, same window" }
  const rows = [
    { metric: `idle CPU, the cluster's statements through node-postgres${label} (ms/s)`, value: rawPg, ...base },
    { metric: `idle CPU, the cluster's statements through @effect/sql-pg${label} (ms/s)`, value: effectSql, ...base },
    { metric: `idle CPU, the bridge's cluster runner alone, the busier of 2${label} (ms/s)`, value: Math.max(...runners), ...base }
  ]
  return { lines, rows }
}

const main = async () => {
  const pg = await startPostgres()
  try {
    const arms = await startFloorArms(pg)
    try {
      await sleep(SETTLE_MS)
      console.log(`idle CPU below the bridge (ms per s, windows of ${WINDOW_S} s; ${os.cpus().length} cores)`)
      const rows: Array<unknown> = []
      for (const label of ["", ", a window later"]) {
        const load0 = os.loadavg()[0]!
        const before = arms.pids.map(cpuMs)
        const t0 = performance.now()
        await sleep(WINDOW_S * 1000)
        const seconds = (performance.now() - t0) / 1000
        const report = floorReport(arms.pids.map((p, i) => (cpuMs(p) - before[i]!) / seconds), label)
        console.log(`window${label} (load ${load0.toFixed(1)} → ${os.loadavg()[0]!.toFixed(1)})`)
        for (const l of report.lines) console.log(l)
        rows.push(...report.rows)
      }
      console.log(`BENCH_JSON ${JSON.stringify({ bench: "cluster-floor", rows })}`)
    } finally {
      arms.stop()
    }
  } finally {
    await pg.stop()
  }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main()
