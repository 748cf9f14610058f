/**
 * MCP edge benchmark (`npx tsx scripts/bench-mcp.ts [calls]`): what one tool call costs over MCP,
 * against a bare `node:http` JSON echo server in the same process and run (the floor of any HTTP
 * round trip on this machine), in both protocol eras.
 *
 * Every arm is driven the same way, one request at a time with `fetch` over a kept-alive loopback
 * connection, so the ratios are the server's cost and not a client library's. The arms are run
 * interleaved, in ROUNDS rounds of `calls / ROUNDS` each (the median round is reported), so a
 * machine that gets busier during the run slows every arm alike:
 * - echo:    POST a JSON-RPC body, get it back (node:http, JSON.parse, JSON.stringify);
 * - modern:  a 2026-07-28 `tools/call` (envelope in `_meta`, no session);
 * - legacy:  a 2025-11-25 `tools/call` on a session opened once with `initialize`.
 * Tools: `bench_noop` (does nothing: the edge alone) and `agent_run_status` on a finished run with
 * 20 KB of output (the edge, a ledger read, and the first 16 KiB window: a 35 KB answer, since the
 * text block repeats `structuredContent`) (its old goal, ≤ 3× the echo, is retired: issue 28 holds
 * the bridge to its peers instead, `npm run bench:peers`). For scale, two more:
 * - status (1 KB answer): `agent_run_status` on a finished run with a 1 KB answer, a typical final
 *   reply (a 2.6 KB MCP answer);
 * - echo (same bytes): a node:http server that answers each request with the 16 KiB window's JSON-RPC
 *   answer, serialized per request from memory: what sending those 35 KB costs any server here;
 * - edge 404: a POST to a path the daemon does not serve (host guard, router, JSON 404): the HTTP
 *   layer's own floor (Effect's platform server), under every MCP call.
 * - tasks/get: the Tasks extension's poll of the same finished runs (a declaring 2026-07-28 request):
 *   the task with the final result inline, held to ≤ 1.1× `agent_run_status` on the same run. The
 *   goal rows time the two call by call in turn (`paired`), after the rounds: as separate arms their
 *   ratio swung 0.6–1.45× between runs on a loaded machine, the CPU ratio 0.74–1.2×.
 * - A2A GetTask: the A2A face's read of the same finished runs (`POST /a2a`, the task with its output
 *   artifact), held to ≤ 1.2× `agent_run_status` on the same run (issue 27), timed call by call in turn.
 * The SDK client's own figures (@modelcontextprotocol/client, both eras) are printed too, for what
 * a real client adds.
 *
 * Besides wall time (p50, p95), each arm reports the main thread's CPU time per call (from /proc,
 * so the garbage collector's helper threads are left out): on a machine shared with other work,
 * wall time swings with the scheduler, CPU time much less. The daemon runs in this process, so that
 * figure is the server's and the `fetch` client's together (labelled so, and the client is named in
 * the output and in every BENCH_JSON row); scripts/bench-peers.ts runs the daemon in a process of its
 * own for the server's CPU alone.
 */
import { HttpServer } from "@effect/platform"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect, Either, ManagedRuntime } from "effect"
import * as fs from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { loadConfig } from "../src/config/load.ts"
import { daemonLayer } from "../src/daemon/Daemon.ts"
import { noopTool } from "./benchNoopTool.ts"
import { Auth } from "../src/services/auth/Auth.ts"

const CALLS = Number(process.argv[2] ?? 2000)
const ROUNDS = CALLS >= 500 ? 5 : 1
const PER_ROUND = Math.ceil(CALLS / ROUNDS)
const WARMUP = Math.min(300, CALLS)
const MODERN = "2026-07-28"
const LEGACY = "2025-11-25"
/** The client every arm is driven with, named in the output and the BENCH_JSON rows. */
const CLIENT = `fetch (node ${process.version}'s built-in undici), one call at a time, kept-alive loopback connection`
/** What the CPU figures are: this process's main thread, which serves and calls. */
const CPU_LABEL = "main-thread CPU of the one process (daemon + fetch client)"

/** Every row names the client it was measured with. */
const withClient = <T extends object>(rows: ReadonlyArray<T>) => rows.map((r) => ({ ...r, client: CLIENT }))


const pct = (xs: ReadonlyArray<number>, p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!

/** CPU time (ms) of this process's main thread, from /proc (10 ms ticks); NaN where there is no /proc. */
const mainThreadCpu = (): number => {
  try {
    const fields = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return Number.NaN
  }
}

interface Figures {
  readonly p50: number
  readonly p95: number
  readonly p99: number
  /** Main-thread CPU per call (ms). */
  readonly cpu: number
}

interface Round {
  readonly p50: number
  readonly p95: number
  readonly p99: number
  /** Main-thread CPU of the whole round (ms). */
  readonly cpu: number
}

/** One round of `n` sequential calls. */
const round = async (once: () => Promise<unknown>, n: number): Promise<Round> => {
  const xs: Array<number> = []
  const c0 = mainThreadCpu()
  for (let i = 0; i < n; i++) {
    const t0 = performance.now()
    await once()
    xs.push(performance.now() - t0)
  }
  return { p50: pct(xs, 0.5), p95: pct(xs, 0.95), p99: pct(xs, 0.99), cpu: mainThreadCpu() - c0 }
}

const median = (xs: ReadonlyArray<number>) => pct(xs, 0.5)

/**
 * Every arm warmed up, then ROUNDS interleaved rounds; each latency is the median over the rounds,
 * the CPU per call is over all of them (the clock ticks in 10 ms).
 */
const timedAll = async <K extends string>(arms: Record<K, () => Promise<unknown>>): Promise<Record<K, Figures>> => {
  const names = Object.keys(arms) as Array<K>
  for (const name of names) for (let i = 0; i < WARMUP; i++) await arms[name]()
  const rounds = new Map<K, Array<Round>>(names.map((n) => [n, []]))
  for (let r = 0; r < ROUNDS; r++) for (const name of names) rounds.get(name)!.push(await round(arms[name], PER_ROUND))
  const out = {} as Record<K, Figures>
  for (const name of names) {
    const rs = rounds.get(name)!
    out[name] = { p50: median(rs.map((x) => x.p50)), p95: median(rs.map((x) => x.p95)), p99: median(rs.map((x) => x.p99)), cpu: rs.reduce((sum, x) => sum + x.cpu, 0) / (PER_ROUND * ROUNDS) }
  }
  return out
}

/**
 * Two arms timed call by call in turn (a b, b a, a b, …): both see the same machine at the same
 * moment, so their ratio does not swing with load the way two arms' rounds (run one after the
 * other) do on a shared machine. The ≤ 1.1× goal between tasks/get and agent_run_status is read
 * from this. Both arms are warm already (`timedAll` ran them).
 */
const paired = async (a: () => Promise<unknown>, b: () => Promise<unknown>, n: number) => {
  const xa: Array<number> = []
  const xb: Array<number> = []
  const once = async (f: () => Promise<unknown>, xs: Array<number>) => {
    const t0 = performance.now()
    await f()
    xs.push(performance.now() - t0)
  }
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) {
      await once(a, xa)
      await once(b, xb)
    } else {
      await once(b, xb)
      await once(a, xa)
    }
  }
  return { a: { p50: pct(xa, 0.5) }, b: { p50: pct(xb, 0.5) } }
}

/**
 * The bare echo: parses the JSON-RPC request and answers its params as a text block. Given `answer`,
 * it answers that result instead (serialized per request, as a server holding it in memory would).
 */
const echoServer = async (answer?: unknown) => {
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const msg = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: number; params: unknown }
      const result = answer ?? { content: [{ type: "text", text: JSON.stringify(msg.params) }] }
      const body = JSON.stringify({ jsonrpc: "2.0", id: msg.id, result })
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
      res.end(body)
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => new Promise<void>((r) => server.close(() => r())) }
}

/** One request; the JSON-RPC answer (undefined for a 202). */
const post = async (url: string, headers: Record<string, string>, body: unknown): Promise<{ result?: unknown } | undefined> => {
  const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) })
  const text = await res.text()
  if (res.status === 202) return undefined
  // A 2025-era session answers on an SSE stream (so that progress can go first): its last data line.
  const json = text.startsWith("event:") || text.startsWith("data:") || text.startsWith(":") ? text.split("\n").filter((l) => l.startsWith("data: ")).at(-1)!.slice(6) : text
  const answer = JSON.parse(json) as { error?: unknown; result?: { isError?: boolean } }
  if (res.status !== 200 || answer.error !== undefined || answer.result?.isError === true) throw new Error(`${res.status} ${text.slice(0, 300)}`)
  return answer
}

/** The CPU per call of the arms the rows above give only a p50 for (CPU_LABEL: server and client). */
const cpuRows = <R>(figures: Record<"modernStatusSmall" | "legacyStatusSmall" | "modernNoop" | "legacyNoop", Figures>, cpuRow: (metric: string, v: Figures) => R) => [
  cpuRow("agent_run_status CPU/call, 1 KB answer, 2026-07-28 (ms)", figures.modernStatusSmall),
  cpuRow("agent_run_status CPU/call, 1 KB answer, 2025-11-25 session (ms)", figures.legacyStatusSmall),
  cpuRow("no-op tool CPU/call, 2026-07-28 (ms)", figures.modernNoop),
  cpuRow("no-op tool CPU/call, 2025-11-25 session (ms)", figures.legacyNoop)
]

const main = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-mcp-"))
  const loaded = loadConfig({ env: { AGENT_BRIDGE_BRIDGE_DATA_DIR: path.join(dir, "data"), AGENT_BRIDGE_BRIDGE_PORT: "0" }, cwd: dir })
  if (Either.isLeft(loaded)) throw new Error(loaded.left.message)
  const runtime = ManagedRuntime.make(daemonLayer(loaded.right, { extraAgentTools: [noopTool] }))
  const port = await runtime.runPromise(HttpServer.addressWith((a) => Effect.succeed(a._tag === "TcpAddress" ? a.port : 0)))
  const auth = await runtime.runPromise(Auth)
  const key = await Effect.runPromise(Effect.map(auth.addClient("bench", ["agents", "a2a"]), (r) => r.key))
  const url = `http://127.0.0.1:${port}/mcp/agents/mcp`
  const echo = await echoServer()

  const sdk = async (era: "modern" | "legacy") => {
    const client = new Client({ name: "bench", version: "0" }, era === "modern" ? { versionNegotiation: { mode: { pin: MODERN } } } : {})
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }))
    return client
  }
  const starter = await sdk("modern")
  const finishedRun = async (input: string) => {
    const started = await starter.callTool({ name: "agent_run", arguments: { agent: "hermes", input, wait_s: 30 } })
    const view = started.structuredContent as { run_id: string; status: string }
    if (view.status !== "completed") throw new Error(`the bench run did not finish: ${view.status}`)
    return view.run_id
  }
  const runId = await finishedRun("[sim:output=20k] bench")
  const smallRunId = await finishedRun("[sim:output=1k] bench, a typical answer")

  const base = { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream" }
  const modernCall = (name: string, run = runId) => () =>
    post(url, { ...base, "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": name }, {
      jsonrpc: "2.0", id: 1, method: "tools/call",
      params: {
        name, arguments: { run_id: run },
        _meta: { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientInfo": { name: "bench", version: "0" }, "io.modelcontextprotocol/clientCapabilities": {} }
      }
    })
  const tasksMeta = {
    "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientInfo": { name: "bench", version: "0" },
    "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } }
  }
  const taskGet = (run: string) => async () => {
    const answer = await post(url, { ...base, "mcp-protocol-version": MODERN, "mcp-method": "tasks/get", "mcp-name": run }, {
      jsonrpc: "2.0", id: 1, method: "tasks/get", params: { taskId: run, _meta: tasksMeta }
    })
    if ((answer?.result as { status?: string } | undefined)?.status !== "completed") throw new Error(`tasks/get did not answer the completed task: ${JSON.stringify(answer).slice(0, 200)}`)
  }
  // A2A GetTask of the same finished runs (issue 27: p50 ≤ 1.2× agent_run_status on it).
  const a2aGet = (run: string) => async () => {
    const res = await fetch(`http://127.0.0.1:${port}/a2a`, {
      method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: run } })
    })
    const answer = (await res.json()) as { result?: { status?: { state?: string } } }
    if (answer.result?.status?.state !== "TASK_STATE_COMPLETED") throw new Error(`GetTask did not answer the completed task: ${JSON.stringify(answer).slice(0, 200)}`)
  }
  const init = await fetch(url, { method: "POST", headers: base, body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "bench", version: "0" } } }) })
  const sid = init.headers.get("mcp-session-id")!
  await init.text()
  const session = { ...base, "mcp-session-id": sid, "mcp-protocol-version": LEGACY }
  await post(url, session, { jsonrpc: "2.0", method: "notifications/initialized" }).catch(() => undefined)
  const legacyCall = (name: string, run = runId) => () => post(url, session, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: { run_id: run } } })
  const statusAnswer = (await modernCall("agent_run_status")())?.result
  if (statusAnswer === undefined) throw new Error("agent_run_status gave no answer to echo")
  const echoSame = await echoServer(statusAnswer)
  const echoBody = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "bench_noop", arguments: { run_id: runId } } }

  const loadBefore = os.loadavg()[0]!
  const figures = await timedAll({
    echo: () => post(echo.url, { "content-type": "application/json" }, echoBody),
    echoSame: () => post(echoSame.url, { "content-type": "application/json" }, echoBody),
    edge404: async () => {
      const res = await fetch(`http://127.0.0.1:${port}/nothing`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(echoBody) })
      await res.text()
      if (res.status !== 404) throw new Error(`edge 404 answered ${res.status}`)
    },
    modernNoop: modernCall("bench_noop"),
    modernStatus: modernCall("agent_run_status"),
    modernStatusSmall: modernCall("agent_run_status", smallRunId),
    modernTaskGet: taskGet(runId),
    modernTaskGetSmall: taskGet(smallRunId),
    legacyNoop: legacyCall("bench_noop"),
    legacyStatus: legacyCall("agent_run_status"),
    legacyStatusSmall: legacyCall("agent_run_status", smallRunId)
  })
  const taskVsStatus = await paired(modernCall("agent_run_status"), taskGet(runId), CALLS)
  const taskVsStatusSmall = await paired(modernCall("agent_run_status", smallRunId), taskGet(smallRunId), CALLS)
  const a2aVsStatus = await paired(modernCall("agent_run_status"), a2aGet(runId), CALLS)
  const a2aVsStatusSmall = await paired(modernCall("agent_run_status", smallRunId), a2aGet(smallRunId), CALLS)
  const loadAfter = os.loadavg()[0]!
  const sdkModern = await sdk("modern")
  const sdkLegacy = await sdk("legacy")
  const sdkFigures = await timedAll({
    modernStatus: async () => void (await sdkModern.callTool({ name: "agent_run_status", arguments: { run_id: runId } })),
    legacyStatus: async () => void (await sdkLegacy.callTool({ name: "agent_run_status", arguments: { run_id: runId } }))
  })
  await Promise.all([starter.close(), sdkModern.close(), sdkLegacy.close()])
  await Promise.all([echo.close(), echoSame.close()])
  await runtime.dispose()

  const f = (n: number) => n.toFixed(3)
  const e = figures.echo.p50
  const ec = figures.echo.cpu
  console.log(`bench-mcp: ${CALLS} sequential calls per arm in ${ROUNDS} interleaved rounds (node ${process.version}, ${os.cpus().length} cores, load ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)})`)
  const line = (name: string, v: Figures) =>
    `${name.padEnd(27)} p50 ${f(v.p50)} ms (${(v.p50 / e).toFixed(2)}×)  p95 ${f(v.p95)} ms (${(v.p95 / figures.echo.p95).toFixed(2)}×)  p99 ${f(v.p99)} ms  CPU ${f(v.cpu)} ms/call (${(v.cpu / ec).toFixed(2)}×)`
  console.log(`client: ${CLIENT}; CPU = ${CPU_LABEL}`)
  console.log(line("echo (node:http)", figures.echo))
  for (const [name, v] of Object.entries(figures).filter(([k]) => k !== "echo")) console.log(line(name, v))
  for (const [name, v] of Object.entries(sdkFigures)) console.log(line(`SDK client ${name}`, v))
  for (const [name, pair] of [["20 KB output", taskVsStatus], ["1 KB answer", taskVsStatusSmall]] as const) {
    console.log(`tasks/get vs agent_run_status, ${name}, call by call in turn: p50 ${f(pair.b.p50)} / ${f(pair.a.p50)} ms = ${(pair.b.p50 / pair.a.p50).toFixed(2)}× (goal ≤ 1.1×)`)
  }
  for (const [name, pair] of [["20 KB output", a2aVsStatus], ["1 KB answer", a2aVsStatusSmall]] as const) {
    console.log(`A2A GetTask vs agent_run_status, ${name}, call by call in turn: p50 ${f(pair.b.p50)} / ${f(pair.a.p50)} ms = ${(pair.b.p50 / pair.a.p50).toFixed(2)}× (goal ≤ 1.2×)`)
  }
  const row = (metric: string, v: { p50: number }, goal?: string) => ({ metric, value: v.p50, baseline: e, baselineName: "node:http JSON echo, same run", ...(goal === undefined ? {} : { goal }) })
  const sameBytesRow = (metric: string, v: { p50: number }) => ({ metric, value: v.p50, baseline: figures.echoSame.p50, baselineName: "node:http answering the same 35 KB, same run" })
  const vsStatus = (metric: string, v: { p50: number }, status: { p50: number }, goal = "≤ 1.1×") => ({ metric, value: v.p50, baseline: status.p50, baselineName: "agent_run_status on the same finished run, 2026-07-28, timed call by call in turn with it", goal })
  const cpuRow = (metric: string, v: Figures) => ({ metric, value: v.cpu, baseline: ec, baselineName: `node:http JSON echo, ${CPU_LABEL}` })
  console.log(`BENCH_JSON ${JSON.stringify({
    bench: "mcp",
    rows: withClient([
      row("agent_run_status p50, 2026-07-28 (ms)", figures.modernStatus),
      row("agent_run_status p50, 2025-11-25 session (ms)", figures.legacyStatus),
      row("agent_run_status p50, 1 KB answer, 2026-07-28 (ms)", figures.modernStatusSmall),
      row("agent_run_status p50, 1 KB answer, 2025-11-25 session (ms)", figures.legacyStatusSmall),
      row("echo answering the same 35 KB p50 (ms)", figures.echoSame),
      row("edge 404 (HTTP layer alone) p50 (ms)", figures.edge404),
      sameBytesRow("agent_run_status p50 vs the same-bytes echo, 2026-07-28 (ms)", figures.modernStatus),
      vsStatus("tasks/get p50 vs agent_run_status, finished run, 20 KB output (ms)", taskVsStatus.b, taskVsStatus.a),
      vsStatus("tasks/get p50 vs agent_run_status, finished run, 1 KB answer (ms)", taskVsStatusSmall.b, taskVsStatusSmall.a),
      vsStatus("A2A GetTask p50 vs agent_run_status, finished run, 20 KB output (ms)", a2aVsStatus.b, a2aVsStatus.a, "≤ 1.2×"),
      vsStatus("A2A GetTask p50 vs agent_run_status, finished run, 1 KB answer (ms)", a2aVsStatusSmall.b, a2aVsStatusSmall.a, "≤ 1.2×"),
      row("no-op tool p50, 2026-07-28 (ms)", figures.modernNoop),
      row("no-op tool p50, 2025-11-25 session (ms)", figures.legacyNoop),
      cpuRow("agent_run_status CPU/call, 2026-07-28 (ms)", figures.modernStatus),
      cpuRow("agent_run_status CPU/call, 2025-11-25 session (ms)", figures.legacyStatus),
      ...cpuRows(figures, cpuRow)
    ])
  })}`)
}

main().then(() => process.exit(0), (e) => {
  console.error(e)
  process.exit(1)
})
