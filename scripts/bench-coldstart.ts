/**
 * Cold start (issue 9): process start to the first 200 from `/healthz`, against a baseline measured
 * in the same run: `node -e` starting a bare `node:http` server that answers `/healthz`. Every arm is
 * timed the same way (spawn, then poll `/healthz` every 5 ms), interleaved, median of the repetitions;
 * CPU time (user + system, read from /proc at that moment) is reported beside wall time, as it is
 * steadier on a shared machine.
 *
 * - bundle, first start: `node <bundle> serve` on a fresh data dir (migrations, admin key, the
 *   embedded Hermes simulator): what `node bin/agent-bridge.js serve` runs after `npm install`;
 * - bundle, restart: the same data dir again (what a supervisor restart costs);
 * - from source: `AGENT_BRIDGE_FROM_SOURCE=1 node bin/agent-bridge.js serve`, the TypeScript through
 *   tsx (how every start ran before the bundle; bin falls back to it when dist/ is stale).
 * The bundle is built first, into test-artifacts/ (dist/ is left alone).
 *
 *   npx tsx scripts/bench-coldstart.ts [repetitions=5]
 *
 * The last line is `BENCH_JSON {…}` for scripts/bench.ts.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { buildBundle } from "./build.ts"
import { freeLoopbackPort } from "../test/support/freePort.ts"

const ROOT = path.resolve(import.meta.dirname, "..")
const BIN = path.join(ROOT, "bin", "agent-bridge.js")
const BUNDLE_DIR = path.join(ROOT, "test-artifacts", "bench-bundle")
const POLL_MS = 5
const GIVE_UP_MS = 120_000

const healthy = async (port: number) => {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1000) })
    await res.arrayBuffer()
    return res.status === 200
  } catch {
    return false
  }
}

/** CPU time (user + system) a process has used so far, from /proc (Linux); NaN elsewhere. */
const cpuMsOf = (pid: number | undefined): number => {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
  } catch {
    return Number.NaN
  }
}

interface Ready {
  readonly wallMs: number
  readonly cpuMs: number
}

/** Spawns `args`, polls `/healthz` on `port` until it answers 200; returns the time and CPU it took. */
const timeToReady = async (args: ReadonlyArray<string>, port: number, env: NodeJS.ProcessEnv = process.env): Promise<Ready> => {
  const t0 = performance.now()
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "ignore", "pipe"] })
  let stderr = ""
  child.stderr.on("data", (c: Buffer) => { stderr = (stderr + c.toString()).slice(-4000) })
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve))
  let done = false
  void exited.then(() => { done = true })
  try {
    while (!done) {
      if (await healthy(port)) return { wallMs: performance.now() - t0, cpuMs: cpuMsOf(child.pid) }
      if (performance.now() - t0 > GIVE_UP_MS) throw new Error(`not ready after ${GIVE_UP_MS} ms`)
      await new Promise((r) => setTimeout(r, POLL_MS))
    }
    throw new Error(`exited before it was ready (code ${await exited}): ${stderr}`)
  } finally {
    child.kill("SIGTERM")
    await exited
  }
}

const BASELINE = `
const http = require("node:http")
http.createServer((req, res) => {
  res.writeHead(req.url === "/healthz" ? 200 : 404, { "content-type": "application/json" })
  res.end('{"status":"ok"}')
}).listen(Number(process.env.PORT), "127.0.0.1")
`

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

export interface ColdStartResult {
  readonly repetitions: number
  readonly baseline: Ready
  readonly bundleFirst: Ready
  readonly bundleRestart: Ready
  readonly source: Ready
}

const medianOf = (xs: ReadonlyArray<Ready>): Ready => ({ wallMs: median(xs.map((x) => x.wallMs)), cpuMs: median(xs.map((x) => x.cpuMs)) })

/** A config on a free port with a fresh data dir; returns the file and the port. */
const freshConfig = async (): Promise<{ dir: string; file: string; port: number }> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-coldstart-"))
  const port = await freeLoopbackPort()
  const file = path.join(dir, "agent-bridge.yaml")
  fs.writeFileSync(file, `bridge: {port: ${port}, data_dir: ${JSON.stringify(path.join(dir, "data"))}}\n`)
  return { dir, file, port }
}

export const measureColdStart = async (repetitions: number): Promise<ColdStartResult> => {
  const { file: bundle } = await buildBundle(BUNDLE_DIR)
  const env = { ...process.env, EFFECT_LOG_LEVEL: "None" }
  const runs = { baseline: [] as Array<Ready>, bundleFirst: [] as Array<Ready>, bundleRestart: [] as Array<Ready>, source: [] as Array<Ready> }
  for (let i = 0; i < repetitions; i++) {
    // Interleaved, so a burst of load elsewhere on the machine hits every arm alike.
    const port = await freeLoopbackPort()
    runs.baseline.push(await timeToReady(["-e", BASELINE], port, { ...process.env, PORT: String(port) }))
    const a = await freshConfig()
    runs.bundleFirst.push(await timeToReady([bundle, "serve", "--config", a.file], a.port, env))
    runs.bundleRestart.push(await timeToReady([bundle, "serve", "--config", a.file], a.port, env))
    const b = await freshConfig()
    runs.source.push(await timeToReady([BIN, "serve", "--config", b.file], b.port, { ...env, AGENT_BRIDGE_FROM_SOURCE: "1" }))
    for (const c of [a, b]) fs.rmSync(c.dir, { recursive: true, force: true })
  }
  return {
    repetitions,
    baseline: medianOf(runs.baseline),
    bundleFirst: medianOf(runs.bundleFirst),
    bundleRestart: medianOf(runs.bundleRestart),
    source: medianOf(runs.source)
  }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const repetitions = Number(process.argv[2] ?? 5)
  const r = await measureColdStart(repetitions)
  const line = (label: string, x: Ready) =>
    `${label.padEnd(34)} wall ${x.wallMs.toFixed(0).padStart(6)} ms (${(x.wallMs / r.baseline.wallMs).toFixed(1).padStart(5)}×)   cpu ${x.cpuMs.toFixed(0).padStart(6)} ms (${(x.cpuMs / r.baseline.cpuMs).toFixed(1).padStart(5)}×)`
  console.log(`cold start to /healthz 200 (median of ${repetitions}; ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}); × = ratio to the baseline`)
  console.log(`${"baseline: node -e http server".padEnd(34)} wall ${r.baseline.wallMs.toFixed(0).padStart(6)} ms           cpu ${r.baseline.cpuMs.toFixed(0).padStart(6)} ms`)
  console.log(line("bundle, first start (fresh data)", r.bundleFirst))
  console.log(line("bundle, restart (same data dir)", r.bundleRestart))
  console.log(line("from source via tsx, first start", r.source))
  const base = { baseline: r.baseline.wallMs, baselineName: "node -e bare http server" }
  const cpuBase = { baseline: r.baseline.cpuMs, baselineName: "node -e bare http server (CPU)" }
  console.log(`BENCH_JSON ${JSON.stringify({
    bench: "coldstart",
    rows: [
      { metric: "cold start, fresh data dir (ms)", value: r.bundleFirst.wallMs, ...base, goal: "≤ 3×" },
      { metric: "cold start, fresh data dir (ms CPU)", value: r.bundleFirst.cpuMs, ...cpuBase },
      { metric: "restart, same data dir (ms)", value: r.bundleRestart.wallMs, ...base },
      { metric: "cold start from source via tsx (ms)", value: r.source.wallMs, ...base },
      { metric: "cold start from source via tsx (ms CPU)", value: r.source.cpuMs, ...cpuBase }
    ]
  })}`)
}
