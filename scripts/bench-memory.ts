/**
 * The daemon's memory against the same-SDK bare server (issue 28, item 3): resident set size (VmRSS
 * from /proc) idle and under 16 calls in flight, each server a process of its own, each started from
 * an esbuild bundle (so no arm carries tsx's loader):
 *
 * - baseline: scripts/peers/sdkEcho.ts (@modelcontextprotocol/server's low-level `Server`, one `echo`
 *   tool, the SDK the bridge serves with), bundled into test-artifacts/;
 * - bridge, built-in simulator: `node <bundle> serve` on a fresh data dir (the simulator in the same
 *   process, as a plain `serve` with no Hermes configured runs it);
 * - bridge, external Hermes: the same with `hermes.url` pointing at `<bundle> hermes-sim` in another
 *   process (only the bridge's RSS is counted).
 *
 * Idle is read after the first checked call and a pause; under load is the peak of samples every
 * 20 ms while CALLS calls (`echo` for the baseline, `agents_list` for the bridge, 2026-07-28 era)
 * run 16 at a time. Arms are interleaved over the repetitions; medians are reported.
 *
 *   npx tsx scripts/bench-memory.ts [repetitions=3] [calls=4000]
 *
 * The last line is `BENCH_JSON {…}` for scripts/bench.ts.
 */
import * as esbuild from "esbuild"
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { BUNDLE_BANNER, buildBundle, ROOT } from "./build.ts"
import { type Call, MODERN, toolCall, type UndiciPool } from "./peers/client.ts"
import { freeLoopbackPort } from "../test/support/freePort.ts"

const REPETITIONS = Number(process.argv[2] ?? 3)
const CALLS = Number(process.argv[3] ?? 4000)
const IN_FLIGHT = 16
const BUNDLE_DIR = path.join(ROOT, "test-artifacts", "bench-bundle")
const READY_WITHIN_MS = 120_000
const IDLE_PAUSE_MS = 1500

export const rssMiB = (pid: number): number =>
  Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN) / 1024

/** undici's `Pool.request` shape over Node's own fetch: the client does not matter here, only the server's RSS. */
const fetchPool = (origin: string): UndiciPool => ({
  request: async ({ path: p, method, headers, body }) => {
    const res = await fetch(origin + p, { method, headers, ...(body === undefined ? {} : { body }) })
    const h: Record<string, string> = {}
    res.headers.forEach((v, k) => void (h[k] = v))
    return { statusCode: res.status, headers: h, body: { text: () => res.text() } }
  },
  close: async () => {}
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Retries `make` (a first checked call) until the server answers it, bounded in time. */
const firstCall = async (child: ChildProcess, make: () => Promise<Call>, stderr: () => string): Promise<Call> => {
  const t0 = performance.now()
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}): ${stderr()}`)
    try {
      return await make()
    } catch (e) {
      if (performance.now() - t0 > READY_WITHIN_MS) throw e
      await sleep(50)
    }
  }
}

const started = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = process.env) => {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...env, EFFECT_LOG_LEVEL: "None" }, stdio: ["ignore", "ignore", "pipe"] })
  let err = ""
  child.stderr!.on("data", (c: Buffer) => { err = (err + c.toString()).slice(-4000) })
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()))
  const stop = async () => {
    if (child.exitCode === null) child.kill("SIGTERM")
    await exited
  }
  return { child, stderr: () => err, stop }
}

/** Idle RSS (after a first call and a pause), then the peak while `CALLS` calls run `IN_FLIGHT` at a time. */
const measure = async (pid: number, call: Call): Promise<{ idle: number; load: number }> => {
  await sleep(IDLE_PAUSE_MS)
  const idle = rssMiB(pid)
  let peak = idle
  const timer = setInterval(() => { peak = Math.max(peak, rssMiB(pid)) }, 20)
  let next = 0
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => { while (next++ < CALLS) await call() }))
  clearInterval(timer)
  return { idle, load: Math.max(peak, rssMiB(pid)) }
}

const buildEcho = async (): Promise<string> => {
  const file = path.join(BUNDLE_DIR, "sdk-echo.mjs")
  await esbuild.build({
    entryPoints: [path.join(ROOT, "scripts", "peers", "sdkEcho.ts")], outfile: file, bundle: true, platform: "node",
    format: "esm", target: "node20", banner: { js: BUNDLE_BANNER }, logLevel: "warning"
  })
  return file
}

const echoArm = async (echo: string) => {
  const port = await freeLoopbackPort()
  const s = started([echo, String(port)])
  try {
    const call = await firstCall(s.child, () => toolCall({ pool: fetchPool(`http://127.0.0.1:${port}`), path: "/mcp" }, MODERN, "echo", { message: "hello" }, "hello"), s.stderr)
    return await measure(s.child.pid!, call)
  } finally {
    await s.stop()
  }
}

/** The bridge on a fresh data dir with a client key; `hermes` is the config's `hermes:` block, if any. */
const bridgeArm = async (bundle: string, hermes?: { url: string; key: string }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-memory-"))
  try {
    const port = await freeLoopbackPort()
    const config = path.join(dir, "agent-bridge.yaml")
    const hermesLine = hermes === undefined ? "" : `hermes: {url: ${JSON.stringify(hermes.url)}, key: ${JSON.stringify(hermes.key)}}\n`
    fs.writeFileSync(config, `bridge: {port: ${port}, data_dir: ${JSON.stringify(path.join(dir, "data"))}}\n${hermesLine}`)
    const added = spawnSync(process.execPath, [bundle, "client", "add", "bench", "--scope", "agents", "--config", config], { encoding: "utf8", env: { ...process.env, EFFECT_LOG_LEVEL: "None" } })
    const key = /hal0bk_[A-Za-z0-9_-]+/.exec(added.stdout)?.[0]
    if (key === undefined) throw new Error(`client add gave no key: ${added.stdout}${added.stderr}`)
    const s = started([bundle, "serve", "--config", config])
    try {
      const ep = { pool: fetchPool(`http://127.0.0.1:${port}`), path: "/mcp/agents/mcp", headers: { authorization: `Bearer ${key}` } }
      const call = await firstCall(s.child, () => toolCall(ep, MODERN, "agents_list", {}), s.stderr)
      return await measure(s.child.pid!, call)
    } finally {
      await s.stop()
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

const externalArm = async (bundle: string) => {
  const port = await freeLoopbackPort()
  const key = "bench-memory-sim-key"
  const sim = started([bundle, "hermes-sim", "--port", String(port), "--key", key])
  try {
    return await bridgeArm(bundle, { url: `http://127.0.0.1:${port}`, key })
  } finally {
    await sim.stop()
  }
}

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { file: bundle } = await buildBundle(BUNDLE_DIR)
  const echo = await buildEcho()
  const runs = { echo: [] as Array<{ idle: number; load: number }>, sim: [] as Array<{ idle: number; load: number }>, ext: [] as Array<{ idle: number; load: number }> }
  const load0 = os.loadavg()[0]!
  for (let i = 0; i < REPETITIONS; i++) {
    runs.echo.push(await echoArm(echo))
    runs.sim.push(await bridgeArm(bundle))
    runs.ext.push(await externalArm(bundle))
  }
  const m = (xs: ReadonlyArray<{ idle: number; load: number }>) => ({ idle: median(xs.map((x) => x.idle)), load: median(xs.map((x) => x.load)) })
  const e = m(runs.echo), b = m(runs.sim), x = m(runs.ext)
  const f = (n: number) => n.toFixed(1).padStart(6)
  console.log(`server RSS (MiB, median of ${REPETITIONS}; ${CALLS} calls ${IN_FLIGHT} in flight; ${os.cpus().length} cores, load ${load0.toFixed(1)} → ${os.loadavg()[0]!.toFixed(1)})`)
  console.log(`same-SDK bare server (echo)       idle ${f(e.idle)}  under load ${f(e.load)}`)
  console.log(`bridge, built-in simulator        idle ${f(b.idle)} (${(b.idle / e.idle).toFixed(2)}×)  under load ${f(b.load)} (${(b.load / e.load).toFixed(2)}×)`)
  console.log(`bridge, external Hermes (sim)     idle ${f(x.idle)} (${(x.idle / e.idle).toFixed(2)}×)  under load ${f(x.load)} (${(x.load / e.load).toFixed(2)}×)   goal ≤ 1.3× each`)
  const base = { baselineName: "same-SDK bare server (bundled sdkEcho)", goal: "≤ 1.3×" }
  console.log(`BENCH_JSON ${JSON.stringify({
    bench: "memory",
    rows: [
      { metric: "RSS idle, built-in simulator (MiB)", value: b.idle, baseline: e.idle, ...base },
      { metric: `RSS under ${IN_FLIGHT} in flight, built-in simulator (MiB)`, value: b.load, baseline: e.load, ...base },
      { metric: "RSS idle, external Hermes (MiB)", value: x.idle, baseline: e.idle, ...base },
      { metric: `RSS under ${IN_FLIGHT} in flight, external Hermes (MiB)`, value: x.load, baseline: e.load, ...base }
    ]
  })}`)
}
