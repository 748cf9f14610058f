/**
 * The bridge's CPU per MCP call against the same-SDK bare echo, and nothing else: a quick loop for
 * work on the MCP hot path (issue 28), where `npm run bench:peers` times every peer. It starts
 * scripts/peers/sdkEcho.ts and scripts/peers/bridgeDaemon.ts as processes of their own and drives
 * both with scripts/peers/client.ts (undici from the peers cache, as bench:peers does), interleaved
 * in rounds: per arm SEQ calls one at a time (p50) then CONC with 16 in flight (calls/s); CPU per
 * call is the server process's utime + stime over both. Ratios are to the echo of the same era.
 *
 * With PROFILE_DIR set, the daemon runs under `node --cpu-prof` and writes its profile there when it
 * is stopped (SIGINT, so that V8 writes it); summarise it with `npx tsx scripts/cpuprofSummary.ts`.
 * BRIDGE_BUNDLE=file.mjs runs that bundle of scripts/peers/bridgeDaemon.ts instead of the sources
 * through tsx (`npx tsx scripts/build.ts DIR --entry scripts/peers/bridgeDaemon.ts` makes one, with
 * its source map: scripts/cpuprofSummary.ts names its frames by source file and line). BRIDGE_BASELINE=other.mjs (a bundle of the
 * same script built from another commit) adds that daemon's arms to the same rounds ("base …"), for a
 * before/after in one run.
 *
 * In `npm run bench` as `percall`: its BENCH_JSON rows are the bridge's CPU per call against the
 * same-SDK echo's (issue 41, item 2: `agent_run_status` and `agents_list` at ≤ 1.0× in both eras).
 * Without the peers cache (`npm run bench:peers` fills it) the client is the undici of the project's
 * own node_modules, named in each row.
 *
 * Usage: npx tsx scripts/bench-mcp-hot.ts [SEQ=50] [CONC=200] [ROUNDS=6]   (cache: $PEERS_CACHE_DIR)
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { type Call, CONNECTIONS, type Era, inFlight, LEGACY, loadUndici, loadUndiciFrom, MODERN, toolCall } from "./peers/client.ts"
import { freeLoopbackPort } from "../test/support/freePort.ts"

const SEQ = Number(process.argv[2] ?? 50)
const CONC = Number(process.argv[3] ?? 200)
const ROUNDS = Number(process.argv[4] ?? 6)
const HERE = import.meta.dirname
const CACHE = process.env["PEERS_CACHE_DIR"] ?? path.join(HERE, "..", ".cache", "peers")
const PROFILE_DIR = process.env["PROFILE_DIR"]
const READY_WITHIN_MS = 120_000

const cpuOf = (pid: number): number => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(f[11]) + Number(f[12])) * 10
}

const children: Array<ChildProcess> = []
/** Starts a process; resolves with its output's line starting with `ready` (bounded in time). */
const start = (args: ReadonlyArray<string>, ready: string, env: Record<string, string> = {}) =>
  new Promise<{ child: ChildProcess; line: string }>((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    children.push(child)
    let out = ""
    const timer = setTimeout(() => reject(new Error(`not ready within ${READY_WITHIN_MS} ms: ${out.slice(-800)}`)), READY_WITHIN_MS)
    const onData = (c: Buffer) => {
      out += c.toString("utf8")
      const line = out.split("\n").find((l) => l.startsWith(ready))
      if (line !== undefined) {
        clearTimeout(timer)
        resolve({ child, line })
      }
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", onData)
    child.once("exit", (code) => reject(new Error(`exited (${code}): ${out.slice(-800)}`)))
  })

interface Arm {
  readonly name: string
  readonly era: Era
  readonly pid: number
  readonly call: Call
  readonly seq: Array<number>
  concMs: number
  cpuMs: number
}

const main = async () => {
  const cached = fs.existsSync(path.join(CACHE, "npm", "node_modules", "undici", "package.json"))
  const { undici, version } = cached ? await loadUndici(CACHE) : await loadUndiciFrom(path.join(HERE, "..", "node_modules", "undici"))
  const load0 = os.loadavg()
  const tsx = [...process.execArgv]
  const port = await freeLoopbackPort()
  const sdk = await start([...tsx, path.join(HERE, "peers", "sdkEcho.ts"), String(port)], "sdk-echo listening")
  const profArgs = PROFILE_DIR === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`, "--cpu-prof-interval=200"]
  // BRIDGE_BUNDLE: scripts/peers/bridgeDaemon.ts bundled (esbuild), whose profile keeps line numbers.
  const daemon = process.env["BRIDGE_BUNDLE"] === undefined ? [...tsx, path.join(HERE, "peers", "bridgeDaemon.ts")] : [process.env["BRIDGE_BUNDLE"]]
  const bridge = await start([...profArgs, ...daemon], "READY ", { EFFECT_LOG_LEVEL: "None" })
  type Ready = { url: string; key: string; smallRunId: string; windowRunId: string }
  const ready = JSON.parse(bridge.line.slice("READY ".length)) as Ready
  const baseline = process.env["BRIDGE_BASELINE"] === undefined ? undefined : await start([process.env["BRIDGE_BASELINE"]], "READY ", { EFFECT_LOG_LEVEL: "None" })
  const pool = (p: number) => new undici.Pool(`http://127.0.0.1:${p}`, { connections: CONNECTIONS, pipelining: 1 })
  const arms: Array<Arm> = []
  const add = (name: string, era: Era, pid: number, call: Call) => void arms.push({ name, era, pid, call, seq: [], concMs: 0, cpuMs: 0 })
  const bridgeArms = async (prefix: string, era: Era, r: Ready, pid: number) => {
    const ep = { pool: pool(Number(new URL(r.url).port)), path: new URL(r.url).pathname, headers: { authorization: `Bearer ${r.key}` } }
    add(`${prefix}status 1 KB`, era, pid, await toolCall(ep, era, "agent_run_status", { run_id: r.smallRunId }))
    add(`${prefix}status 16 KiB`, era, pid, await toolCall(ep, era, "agent_run_status", { run_id: r.windowRunId }))
    add(`${prefix}agents_list`, era, pid, await toolCall(ep, era, "agents_list", {}))
  }
  for (const era of [MODERN, LEGACY] as const) {
    add("sdk echo", era, sdk.child.pid!, await toolCall({ pool: pool(port), path: "/mcp" }, era, "echo", { message: "hi" }, "hi"))
    await bridgeArms("", era, ready, bridge.child.pid!)
    if (baseline !== undefined) await bridgeArms("base ", era, JSON.parse(baseline.line.slice("READY ".length)) as Ready, baseline.child.pid!)
  }
  for (const a of arms) {
    for (let i = 0; i < 100; i++) await a.call()
    await inFlight(a.call, 200)
  }
  for (let r = 0; r < ROUNDS; r++) {
    for (const a of arms) {
      const c0 = cpuOf(a.pid)
      for (let i = 0; i < SEQ; i++) {
        const s = performance.now()
        await a.call()
        a.seq.push(performance.now() - s)
      }
      a.concMs += await inFlight(a.call, CONC)
      a.cpuMs += cpuOf(a.pid) - c0
    }
  }
  const p50 = (xs: Array<number>) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!
  const fig = (a: Arm) => ({ p50: p50(a.seq), rate: (CONC * ROUNDS) / (a.concMs / 1000), cpu: a.cpuMs / ((SEQ + CONC) * ROUNDS) })
  console.log(`bench-mcp-hot ${new Date().toISOString()}: load ${load0.map((l) => l.toFixed(1)).join(" ")} → ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}; undici ${version}; ${ROUNDS} rounds × (${SEQ} + ${CONC})`)
  console.log("| arm | era | p50 ms | calls/s | CPU ms/call |\n| --- | --- | --: | --: | --: |")
  for (const a of arms) {
    const v = fig(a)
    const b = fig(arms.find((x) => x.name === "sdk echo" && x.era === a.era)!)
    const r = (x: number, y: number) => (a.name === "sdk echo" ? "" : ` (${(x / y).toFixed(2)}×)`)
    console.log(`| ${a.name} | ${a.era} | ${v.p50.toFixed(3)}${r(v.p50, b.p50)} | ${v.rate.toFixed(0)}${r(v.rate, b.rate)} | ${v.cpu.toFixed(3)}${r(v.cpu, b.cpu)} |`)
  }
  // The bench table's rows: CPU per call of each bridge arm against the echo of its era (issue 41's goal).
  const client = `undici ${version} Pool.request, ${CONNECTIONS} connections${cached ? "" : " (the project's own undici: no peers cache)"}`
  const rows = arms
    .filter((a) => a.name !== "sdk echo" && !a.name.startsWith("base "))
    .map((a) => ({
      metric: `${a.name === "agents_list" ? "agents_list" : `agent_run_status ${a.name.slice("status ".length)}`} CPU/call, ${a.era} (ms)`,
      value: Number(fig(a).cpu.toFixed(3)),
      baseline: Number(fig(arms.find((x) => x.name === "sdk echo" && x.era === a.era)!).cpu.toFixed(3)),
      baselineName: "same-SDK low-level Server echo, same era",
      goal: a.name === "status 16 KiB" ? undefined : "≤ 1.0×",
      client
    }))
  console.log(`BENCH_JSON ${JSON.stringify({ bench: "percall", rows })}`)
}

const stop = async () => {
  for (const c of children) {
    if (c.exitCode !== null) continue
    const exited = new Promise((r) => c.once("exit", r))
    c.kill("SIGINT")
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))])
    if (c.exitCode === null) c.kill("SIGKILL")
  }
}
main().then(
  () => stop().then(() => process.exit(0)),
  (e: unknown) => {
    console.error(e)
    void stop().then(() => process.exit(1))
  }
)
