/**
 * `npm run bench:peers` (after scripts/peers-install.sh): the bridge against the MCP servers a user
 * could run instead, side by side in one run on this machine, each serving one trivial `echo` tool
 * over Streamable HTTP on 127.0.0.1 (the bridge serves its own tools):
 * - bare `node:http` JSON echo (no MCP: the floor of an HTTP round trip), scripts/peers/nodeEcho.ts;
 * - the same SDK as the bridge (@modelcontextprotocol/server, low-level `Server`), scripts/peers/sdkEcho.ts;
 * - mcp-go and the official Go SDK (scripts/peers/{mcp-go,go-sdk}, built by peers-install.sh);
 * - server-everything (the reference server, on SDK v1: the 2025 era only) and FastMCP (Python);
 * - the bridge (scripts/peers/bridgeDaemon.ts): `agent_run_status` on a finished run with a 1 KB
 *   answer and on its 16 KiB window, and `agents_list`.
 * Every server is a process of its own, so its CPU is read from /proc/<pid>/stat (utime + stime, all
 * its threads). One client for every arm (scripts/peers/client.ts: undici `Pool.request`, 16 kept-alive
 * connections), both eras where the server speaks them. After a warmup, ROUNDS interleaved rounds;
 * in each, every arm makes SEQ calls one at a time (p50, p99 over all of them) and then CONC calls
 * with 16 in flight (calls/s). CPU per call is the server's CPU over both phases / their calls.
 * Each figure is also given as a ratio to the same-SDK bare server's echo of the same era.
 *
 * Nothing leaves the machine: the servers are started with HTTP(S)_PROXY pointing at a closed loopback
 * port (NO_PROXY for loopback itself) and FastMCP's update check off.
 *
 * Usage: npx tsx scripts/bench-peers.ts [SEQ=50] [CONC=200] [ROUNDS=10]   (cache: $PEERS_CACHE_DIR)
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { type Call, CONNECTIONS, type Era, inFlight, LEGACY, loadUndici, MODERN, plainCall, toolCall } from "./peers/client.ts"
import { freeLoopbackPort } from "../test/support/freePort.ts"

const SEQ = Number(process.argv[2] ?? 50)
const CONC = Number(process.argv[3] ?? 200)
const ROUNDS = Number(process.argv[4] ?? 10)
const WARMUP = Math.min(200, SEQ * 2)
const HERE = import.meta.dirname
const CACHE = process.env["PEERS_CACHE_DIR"] ?? path.join(HERE, "..", ".cache", "peers")
const READY_WITHIN_MS = 120_000
/** For every server: any outbound HTTP would go to a closed port (none is expected). */
const OFFLINE = {
  HTTP_PROXY: "http://127.0.0.1:9", HTTPS_PROXY: "http://127.0.0.1:9", http_proxy: "http://127.0.0.1:9", https_proxy: "http://127.0.0.1:9",
  NO_PROXY: "127.0.0.1,localhost", no_proxy: "127.0.0.1,localhost", FASTMCP_CHECK_FOR_UPDATES: "off"
}


/** CPU (ms) of a process, all its threads, from /proc (clock ticks of 10 ms). */
const processCpu = (pid: number): number => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}
const rssMiB = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN) / 1024

/** Whether 127.0.0.1:`port` accepts a connection now. */
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, "127.0.0.1")
    socket.on("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.on("error", () => {
      socket.destroy()
      resolve(false)
    })
  })

interface Peer {
  readonly name: string
  readonly child: ChildProcess
  readonly port: number
  /** The bridge's READY line (url, key, runs); undefined for the others. */
  readonly ready?: Ready
}
interface Ready {
  readonly url: string
  readonly key: string
  readonly smallRunId: string
  readonly windowRunId: string
}

const children: Array<ChildProcess> = []

/** Starts a server; resolves once its port accepts connections (or, given `readyLine`, it printed it). */
const startPeer = async (name: string, cmd: string, args: ReadonlyArray<string>, port: number, env: Record<string, string> = {}, readyLine?: string): Promise<Peer> => {
  const child = spawn(cmd, args, { env: { ...process.env, ...OFFLINE, ...env }, stdio: ["ignore", "pipe", "pipe"] })
  children.push(child)
  let out = ""
  child.stdout!.on("data", (c: Buffer) => void (out += c.toString("utf8")))
  child.stderr!.on("data", (c: Buffer) => void (out += c.toString("utf8")))
  const deadline = Date.now() + READY_WITHIN_MS
  for (let i = 0; Date.now() < deadline; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}): ${out.slice(-800)}`)
    if (readyLine !== undefined) {
      const line = out.split("\n").find((l) => l.startsWith(readyLine))
      if (line !== undefined) {
        // This server picks its own port (it is told 0) and says which in its READY line.
        const ready = JSON.parse(line.slice(readyLine.length)) as Ready
        return { name, child, port: Number(new URL(ready.url).port), ready }
      }
    } else if (await accepts(port)) {
      return { name, child, port }
    }
    await new Promise((r) => setTimeout(r, Math.min(200, 20 * (i + 1))))
  }
  throw new Error(`${name} was not ready within ${READY_WITHIN_MS} ms: ${out.slice(-800)}`)
}

interface Arm {
  readonly server: string
  readonly era: Era | "–"
  readonly peer: Peer
  readonly call: Call
  readonly seq: Array<number>
  seqMs: number
  concMs: number
  cpuMs: number
}

const pct = (xs: ReadonlyArray<number>, p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!

const oneRound = async (arm: Arm) => {
  const c0 = processCpu(arm.peer.child.pid!)
  const t0 = performance.now()
  for (let i = 0; i < SEQ; i++) {
    const s = performance.now()
    await arm.call()
    arm.seq.push(performance.now() - s)
  }
  arm.seqMs += performance.now() - t0
  arm.concMs += await inFlight(arm.call, CONC)
  arm.cpuMs += processCpu(arm.peer.child.pid!) - c0
}

const main = async () => {
  if (!fs.existsSync(path.join(CACHE, "bin", "gosdk-echo"))) throw new Error(`the peers are not installed in ${CACHE}: run bash scripts/peers-install.sh (npm run bench:peers does)`)
  const { undici, version: undiciVersion } = await loadUndici(CACHE)
  const loadStart = os.loadavg()
  const node = (script: string) => [process.execPath, [...process.execArgv, path.join(HERE, "peers", script)]] as const
  const everything = path.join(CACHE, "npm", "node_modules", "@modelcontextprotocol", "server-everything")
  const versionOf = (pkg: string) => (JSON.parse(fs.readFileSync(path.join(pkg, "package.json"), "utf8")) as { version: string }).version
  const fastmcpVersion = fs.readFileSync(path.join(CACHE, "venv", ".stamp"), "utf8").trim().split("==")[1]!

  // One at a time, so that the servers' start-up does not crowd each other on a small machine.
  const peers: Record<string, Peer> = {}
  const start = async (key: string, name: string, cmd: string, args: ReadonlyArray<string>, env?: Record<string, string>, readyLine?: string) => {
    const port = await freeLoopbackPort()
    console.error(`bench-peers: starting ${name} on ${port}`)
    peers[key] = await startPeer(name, cmd, args.map((a) => (a === "PORT" ? String(port) : a)), port, env === undefined ? {} : Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === "PORT" ? String(port) : v])), readyLine)
  }
  await start("node", "bare `node:http` JSON echo", node("nodeEcho.ts")[0], [...node("nodeEcho.ts")[1], "PORT"])
  await start("sdk", "same SDK, low-level `Server` (@modelcontextprotocol/server 2.4)", node("sdkEcho.ts")[0], [...node("sdkEcho.ts")[1], "PORT"])
  await start("mcpgo", "`mcp-go` 1.2.1", path.join(CACHE, "bin", "mcpgo-echo"), ["PORT"])
  await start("gosdk", "official Go SDK 1.8.0", path.join(CACHE, "bin", "gosdk-echo"), ["PORT"])
  await start("everything", `\`server-everything\` ${versionOf(everything)}`, process.execPath, ["--import", path.join(HERE, "peers", "loopbackOnly.mjs"), path.join(everything, "dist", "index.js"), "streamableHttp"], { PORT: "PORT" })
  await start("fastmcp", `FastMCP ${fastmcpVersion}`, path.join(CACHE, "venv", "bin", "python"), [path.join(HERE, "peers", "fastmcp_echo.py"), "PORT"])
  peers["bridge"] = await startPeer("bridge", node("bridgeDaemon.ts")[0], node("bridgeDaemon.ts")[1], 0, { EFFECT_LOG_LEVEL: process.env["EFFECT_LOG_LEVEL"] ?? "None" }, "READY ")

  const pools: Array<{ close(): Promise<void> }> = []
  const endpoint = (peer: Peer, p = "/mcp", headers?: Record<string, string>) => {
    const pool = new undici.Pool(`http://127.0.0.1:${peer.port}`, { connections: CONNECTIONS, pipelining: 1 })
    pools.push(pool)
    return headers === undefined ? { pool, path: p } : { pool, path: p, headers }
  }
  const arms: Array<Arm> = []
  const arm = (server: string, era: Arm["era"], peer: Peer, call: Call) => void arms.push({ server, era, peer, call, seq: [], seqMs: 0, concMs: 0, cpuMs: 0 })
  /** The arm's first call, checked, named in its error. */
  const first = (peer: Peer, era: Era, p: Promise<Call>) => p.catch((e: unknown) => Promise.reject(new Error(`${peer.name}, ${era}: ${e instanceof Error ? e.message : String(e)}`, { cause: e })))
  const echoArgs = { message: "hello from bench-peers" }
  arm(peers["node"]!.name, "–", peers["node"]!, plainCall(endpoint(peers["node"]!, "/")))
  for (const key of ["sdk", "mcpgo", "gosdk", "fastmcp"]) {
    for (const era of [MODERN, LEGACY] as const) arm(peers[key]!.name, era, peers[key]!, await first(peers[key]!, era, toolCall(endpoint(peers[key]!), era, "echo", echoArgs, echoArgs.message)))
  }
  arm(peers["everything"]!.name, LEGACY, peers["everything"]!, await first(peers["everything"]!, LEGACY, toolCall(endpoint(peers["everything"]!), LEGACY, "echo", echoArgs, echoArgs.message)))
  const bridge = peers["bridge"]!
  const bridgeEp = () => endpoint(bridge, new URL(bridge.ready!.url).pathname, { authorization: `Bearer ${bridge.ready!.key}` })
  for (const era of [MODERN, LEGACY] as const) {
    arm("**bridge `agent_run_status` 1 KB answer**", era, bridge, await toolCall(bridgeEp(), era, "agent_run_status", { run_id: bridge.ready!.smallRunId }))
    arm("**bridge `agent_run_status` 16 KiB window**", era, bridge, await toolCall(bridgeEp(), era, "agent_run_status", { run_id: bridge.ready!.windowRunId }))
    arm("**bridge `agents_list`**", era, bridge, await toolCall(bridgeEp(), era, "agents_list", {}))
  }

  for (const a of arms) {
    for (let i = 0; i < WARMUP; i++) await a.call()
    await inFlight(a.call, Math.min(CONC, 200))
  }
  const t0 = performance.now()
  for (let r = 0; r < ROUNDS; r++) for (const a of arms) await oneRound(a)
  const seconds = (performance.now() - t0) / 1000
  const loadEnd = os.loadavg()
  const rss = Object.fromEntries(Object.entries(peers).map(([k, p]) => [k, rssMiB(p.child.pid!)]))

  const figures = (a: Arm) => ({ p50: pct(a.seq, 0.5), p99: pct(a.seq, 0.99), rate: (CONC * ROUNDS) / (a.concMs / 1000), cpu: a.cpuMs / ((SEQ + CONC) * ROUNDS) })
  const base = (era: Arm["era"]) => arms.find((a) => a.peer === peers["sdk"] && a.era === era)
  const f2 = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(2))
  const cell = (v: number, b: number | undefined) => (b === undefined ? f2(v) : `${f2(v)} (${(v / b).toFixed(2)}×)`)
  console.log(`bench-peers ${new Date().toISOString()}: ${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? "?"}), node ${process.version}; load average ${loadStart.map((l) => l.toFixed(1)).join(" ")} at the start, ${loadEnd.map((l) => l.toFixed(1)).join(" ")} at the end; ${seconds.toFixed(0)} s timed`)
  console.log(`client: undici ${undiciVersion} Pool.request, ${CONNECTIONS} kept-alive connections; per arm ${ROUNDS} interleaved rounds of ${SEQ} calls one at a time + ${CONC} with ${CONNECTIONS} in flight (${(SEQ + CONC) * ROUNDS} timed calls), after ${WARMUP} + ${Math.min(CONC, 200)} warmup calls`)
  console.log("ratio (in brackets) = value / the same-SDK bare server's echo of the same era; CPU = the server process's utime + stime over all timed calls\n")
  console.log("| server (one trivial `echo`, except the bridge) | era | p50 ms | p99 ms | calls/s, 16 in flight | CPU ms/call |")
  console.log("| --- | --- | --: | --: | --: | --: |")
  for (const a of arms) {
    const v = figures(a)
    const b = a.era === "–" || a.peer === peers["sdk"] ? undefined : base(a.era)
    const bf = b === undefined ? undefined : figures(b)
    console.log(`| ${a.server} | ${a.era} | ${cell(v.p50, bf?.p50)} | ${cell(v.p99, bf?.p99)} | ${cell(v.rate, bf?.rate)} | ${cell(v.cpu, bf?.cpu)} |`)
  }
  console.log(`\nserver RSS at the end (MiB): ${Object.entries(peers).map(([k, p]) => `${p.name.replace(/`/g, "")} ${rss[k]!.toFixed(0)}`).join(", ")}`)
  await Promise.all(pools.map((p) => p.close()))
}

const stopAll = () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGTERM")
}
main().then(
  () => {
    stopAll()
    process.exit(0)
  },
  (e: unknown) => {
    console.error(e)
    stopAll()
    process.exit(1)
  }
)
