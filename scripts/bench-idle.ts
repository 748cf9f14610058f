/**
 * The daemon's CPU while nothing happens (issue 41, item 1): `utime + stime` of the process from
 * /proc/<pid>/stat over a window (60 s by default), in ms of CPU per second of wall time, with no
 * live run and
 *
 * - no client at all;
 * - one idle 2025-era MCP session (initialize, notifications/initialized, and the session's standing
 *   GET stream held open, as clients keep it);
 * - one idle console page (signed in with the admin key, its event stream `/inbox/console/events`
 *   held open, as the page keeps it), over two windows (the first can hold V8's collections after
 *   the sign-in's work; the second is the steady state);
 * - no client again (the first window, soon after start, can hold V8's memory reducer);
 *
 * on SQLite (one daemon, `serve` from the esbuild bundle on a fresh data dir, the built-in simulator
 * in its process; each window also prints the daemon's main thread alone), and, unless `--no-pg`, on
 * PostgreSQL: as a replica (two daemons on one database with their cluster ports; each replica's
 * CPU, no client) and one daemon without a cluster (its own database), with the arms of
 * scripts/bench-cluster-floor.ts in the same windows (the cluster's clock below the bridge: its
 * statements through node-postgres and through `@effect/sql-pg`, the bridge's cluster runner
 * alone); the server's own CPU is not counted.
 * A bare `node:http` server idles beside it over the same windows: the baseline (the machine's load
 * and the runtime's floor). Goals: ≤ 1 ms/s on SQLite, ≤ 2 ms/s as a replica.
 *
 *   npx tsx scripts/bench-idle.ts [window seconds=60] [--no-pg | --only-pg]
 *
 * BENCH_IDLE_BUNDLE=<file> measures that bundle instead of building this tree's (an older build, for
 * a before/after).
 *
 * The last line is `BENCH_JSON {…}` for scripts/bench.ts.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { buildBundle, ROOT } from "./build.ts"
import { LEGACY } from "./peers/client.ts"
import { freeLoopbackPort } from "../test/support/freePort.ts"
import { floorReport, startFloorArms } from "./bench-cluster-floor.ts"
import { cpuMsOfStat } from "./benchScaleParts.ts"

const WINDOW_S = Number(process.argv.slice(2).find((a) => /^\d+(\.\d+)?$/.test(a)) ?? 60)
const WITH_PG = !process.argv.includes("--no-pg")
const WITH_SQLITE = !process.argv.includes("--only-pg")
const BUNDLE_DIR = path.join(ROOT, "test-artifacts", "bench-bundle")
const ADMIN_KEY = "hal0bk_bench0idle0admin0key0000000000000"
const CLUSTER_SECRET = "bench-idle-cluster-secret-0123456789abcdef"
/**
 * After start, before the first window: start-up's own work is not idle, nor is V8's memory reducer,
 * a one-off set of full collections about a minute after start once the heap stops growing (some
 * 300 ms of CPU, which would read as 5 ms/s in one 60 s window). Short windows (a quick run) wait 5 s.
 */
const SETTLE_MS = WINDOW_S >= 30 ? 75_000 : 5000
/** After a client leaves, before the next window: what its going costs is not idle. */
const CLIENT_GONE_MS = 5000

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** CPU time of a process so far, in ms (user + system). */
const cpuMs = (pid: number): number => cpuMsOfStat(fs.readFileSync(`/proc/${pid}/stat`, "utf8"))

/** BENCH_IDLE_NODE_ARGS: node options for the daemons (`--cpu-prof --cpu-prof-dir=…` to see what wakes them). */
const NODE_ARGS = (process.env["BENCH_IDLE_NODE_ARGS"] ?? "").split(" ").filter((a) => a !== "")

/** BENCH_IDLE_STDOUT_DIR: keep each process's stdout there (`<pid>.out`), to see what an idle daemon writes. */
const STDOUT_DIR = process.env["BENCH_IDLE_STDOUT_DIR"]

const started = (args: ReadonlyArray<string>) => {
  const out = STDOUT_DIR === undefined ? "ignore" : "pipe"
  const child = spawn(process.execPath, [...(args[0] === "-e" ? [] : NODE_ARGS), ...args], { cwd: ROOT, env: { ...process.env, EFFECT_LOG_LEVEL: "None" }, stdio: ["ignore", out, "pipe"] })
  if (STDOUT_DIR !== undefined) child.stdout!.pipe(fs.createWriteStream(path.join(STDOUT_DIR, `${child.pid}.out`)))
  let err = ""
  child.stderr!.on("data", (c: Buffer) => void (err = (err + c.toString()).slice(-4000)))
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()))
  return { child, stderr: () => err, stop: async () => { if (child.exitCode === null) child.kill("SIGTERM"); await exited } }
}

const ready = async (child: ChildProcess, base: string, stderr: () => string) => {
  const t0 = performance.now()
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the daemon exited (${child.exitCode}): ${stderr()}`)
    const ok = await fetch(`${base}/healthz`).then((r) => r.json() as Promise<{ ready?: boolean }>).then((b) => b.ready === true).catch(() => false)
    if (ok) return
    if (performance.now() - t0 > 300_000) throw new Error(`not ready within 300 s: ${stderr()}`)
    await sleep(200)
  }
}

/**
 * CPU time of a process's main thread so far, in ms: the thread that runs JavaScript (its id is the
 * process's). The rest of a process's CPU is V8's helper threads (concurrent marking and sweeping
 * after a collection) and libuv's pool.
 */
const mainThreadCpuMs = (pid: number): number => cpuMsOfStat(fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8"))

/**
 * ms of CPU per second of each `pids` over one window, with the load average at its start and end;
 * `mainMsPerS`: the first process's main thread alone.
 */
const window = async (pids: ReadonlyArray<number>) => {
  const load0 = os.loadavg()[0]!
  const before = pids.map(cpuMs)
  const mainBefore = mainThreadCpuMs(pids[0]!)
  const t0 = performance.now()
  await sleep(WINDOW_S * 1000)
  const seconds = (performance.now() - t0) / 1000
  return {
    msPerS: pids.map((p, i) => (cpuMs(p) - before[i]!) / seconds),
    mainMsPerS: (mainThreadCpuMs(pids[0]!) - mainBefore) / seconds,
    load: `${load0.toFixed(1)} → ${os.loadavg()[0]!.toFixed(1)}`
  }
}

/** A response body read until aborted (a held event stream). */
const held = async (url: string, headers: Record<string, string>) => {
  const abort = new AbortController()
  const res = await fetch(url, { headers, signal: abort.signal })
  if (res.status !== 200) throw new Error(`GET ${url}: HTTP ${res.status}`)
  const reader = res.body!.getReader()
  void (async () => { try { for (;;) if ((await reader.read()).done) return } catch { /* aborted */ } })()
  return () => abort.abort()
}

const jsonRpc = { "content-type": "application/json", accept: "application/json, text/event-stream" }

/** An idle 2025-era session with its standing GET stream open; answers how to close both. */
const idleSession = async (base: string, key: string) => {
  const url = `${base}/mcp/agents/mcp`
  const auth = { authorization: `Bearer ${key}` }
  const init = await fetch(url, { method: "POST", headers: { ...jsonRpc, ...auth }, body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "bench-idle", version: "0" } } }) })
  const sid = init.headers.get("mcp-session-id")
  await init.text()
  if (sid === null) throw new Error(`initialize gave no session id (HTTP ${init.status})`)
  const session = { ...auth, "mcp-session-id": sid, "mcp-protocol-version": LEGACY }
  await (await fetch(url, { method: "POST", headers: { ...jsonRpc, ...session }, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) })).text()
  const close = await held(url, { ...session, accept: "text/event-stream" })
  return async () => {
    close()
    await fetch(url, { method: "DELETE", headers: session }).then((r) => r.text()).catch(() => "")
  }
}

/** A signed-in console page's event stream, held open. */
const idleConsole = async (base: string) => {
  const jar = new Map<string, string>()
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ")
  const send = async (method: string, p: string, form?: Record<string, string>) => {
    const res = await fetch(`${base}${p}`, {
      method, redirect: "manual",
      headers: { cookie: cookie(), ...(form === undefined ? {} : { "content-type": "application/x-www-form-urlencoded", origin: base }) },
      ...(form === undefined ? {} : { body: new URLSearchParams(form).toString() })
    })
    for (const c of res.headers.getSetCookie()) {
      const [name = "", value = ""] = (c.split(";")[0] ?? "").split("=")
      if (value === "") jar.delete(name)
      else jar.set(name, value)
    }
    return res.text()
  }
  const form = await send("GET", "/inbox/signin")
  await send("POST", "/inbox/signin", { csrf: /name="csrf" value="([^"]+)"/.exec(form)?.[1] ?? "", key: ADMIN_KEY })
  if (jar.size === 0) throw new Error("signing in to the console gave no session cookie")
  return held(`${base}/inbox/console/events`, { cookie: cookie(), accept: "text/event-stream" })
}

const writeConfig = (dir: string, name: string, body: Record<string, unknown>) => {
  const file = path.join(dir, `${name}.yaml`)
  fs.writeFileSync(file, `${JSON.stringify(body)}\n`)
  return file
}

const sqliteArms = async (bundle: string, bare: number) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-idle-"))
  try {
    const port = await freeLoopbackPort()
    const config = writeConfig(dir, "sqlite", { bridge: { port, data_dir: path.join(dir, "data"), admin_key: ADMIN_KEY } })
    const added = spawnSync(process.execPath, [bundle, "client", "add", "bench", "--scope", "agents", "--config", config], { encoding: "utf8", env: { ...process.env, EFFECT_LOG_LEVEL: "None" } })
    const key = /hal0bk_[A-Za-z0-9_-]+/.exec(added.stdout)?.[0]
    if (key === undefined) throw new Error(`client add gave no key: ${added.stdout}${added.stderr}`)
    const d = started([bundle, "serve", "--config", config])
    try {
      const base = `http://127.0.0.1:${port}`
      await ready(d.child, base, d.stderr)
      await sleep(SETTLE_MS)
      const pid = d.child.pid!
      const none = await window([pid, bare])
      const closeSession = await idleSession(base, key)
      const session = await window([pid, bare])
      await closeSession()
      const closeConsole = await idleConsole(base)
      const page = await window([pid, bare])
      // The page held a window more: the first can hold V8's collections after the sign-in's work.
      const pageLater = await window([pid, bare])
      closeConsole()
      // The page's going is its own work, not idle: its stream torn down, the collections of what it
      // left (a few scavenges, some 10-40 ms of CPU in all). Windows that began at the close read
      // 1.33-2.00 ms/s where the next ones read 0-0.33 (2026-12-04).
      await sleep(CLIENT_GONE_MS)
      // No client again, minutes after start: the first window can hold V8's one-off collections.
      const noneLater = await window([pid, bare])
      return { none, session, page, pageLater, noneLater }
    } finally {
      await d.stop()
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

const pgArm = async (bundle: string, bare: number) => {
  const { startPostgres } = await import("../test/support/pgServer.ts")
  const pg = await startPostgres()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-idle-pg-"))
  const replicas: Array<ReturnType<typeof started>> = []
  let floor: Awaited<ReturnType<typeof startFloorArms>> | undefined
  try {
    const url = await pg.createDatabase()
    const ports: Array<number> = []
    // A daemon on PostgreSQL without a cluster (`cluster.port: 0`), on a database of its own: the
    // bridge's own wake-ups there, apart from the cluster's.
    const alonePort = await freeLoopbackPort()
    ports.push(alonePort)
    replicas.push(started([bundle, "serve", "--config", writeConfig(dir, "alone", {
      bridge: { port: alonePort, data_dir: path.join(dir, "data-alone"), admin_key: ADMIN_KEY },
      storage: { url: await pg.createDatabase() },
      cluster: { port: 0 }
    })]))
    for (let i = 0; i < 2; i++) {
      const port = await freeLoopbackPort()
      ports.push(port)
      const config = writeConfig(dir, `replica-${i}`, {
        bridge: { port, data_dir: path.join(dir, `data-${i}`), admin_key: ADMIN_KEY, replica_id: `r${i}` },
        storage: { url },
        cluster: { port: await freeLoopbackPort(), secret: CLUSTER_SECRET }
      })
      replicas.push(started([bundle, "serve", "--config", config]))
    }
    await Promise.all(replicas.map((r, i) => ready(r.child, `http://127.0.0.1:${ports[i]}`, r.stderr)))
    // Beside them, what the same clock costs below the bridge (scripts/bench-cluster-floor.ts): a
    // reading beside this arm's, so an arm that cannot start is said and the windows go on without it.
    floor = await startFloorArms(pg).catch((e: unknown) => {
      console.log(`below the bridge: not measured (${e instanceof Error ? e.message : String(e)})`)
      return undefined
    })
    await sleep(SETTLE_MS)
    // Two windows back to back: V8's memory reducer (full collections about 90 s after start,
    // 300–600 ms of CPU in all, seen with --trace-gc) can fall in the first; the second is the
    // steady state.
    const pids = [...replicas.map((r) => r.child.pid!), bare]
    const floorPids = floor?.pids ?? []
    const both = async () => {
      const w = await window([...pids, ...floorPids])
      return { bridge: { msPerS: w.msPerS.slice(0, pids.length), load: w.load }, floor: w.msPerS.slice(pids.length) }
    }
    const first = await both()
    return { first, later: await both() }
  } finally {
    floor?.stop()
    for (const r of replicas) await r.stop()
    await pg.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const given = process.env["BENCH_IDLE_BUNDLE"]
  const bundle = given !== undefined && given !== "" ? path.resolve(given) : (await buildBundle(BUNDLE_DIR)).file
  const bare = started(["-e", "require('node:http').createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1')"])
  try {
    const f = (n: number) => n.toFixed(2).padStart(6)
    console.log(`idle CPU (ms per s, windows of ${WINDOW_S} s; ${os.cpus().length} cores; the bare node:http server idles beside it)`)
    const line = (name: string, w: { msPerS: ReadonlyArray<number>; mainMsPerS: number; load: string }, goal: string) =>
      console.log(`${name.padEnd(44)} ${f(w.msPerS[0]!)}  (its main thread ${f(w.mainMsPerS)}; bare node:http ${f(w.msPerS.at(-1)!)}; load ${w.load})  goal ${goal}`)
    const base = { baselineName: "a bare node:http server idling in the same window" }
    const rows: Array<{ metric: string; value: number; baseline: number; goal?: string; baselineName: string }> = []
    // The two arms run side by side (each window counts only its own processes' CPU, and idle
    // daemons hardly load the machine): the row's wall time is the longer arm's, not their sum.
    const [sqlite, pgResult] = await Promise.all([
      WITH_SQLITE ? sqliteArms(bundle, bare.child.pid!) : Promise.resolve(undefined),
      WITH_PG ? pgArm(bundle, bare.child.pid!) : Promise.resolve(undefined)
    ])
    if (sqlite !== undefined) {
      const s = sqlite
      line("SQLite, no client", s.none, "≤ 1")
      line("SQLite, one idle 2025 session", s.session, "≤ 1")
      line("SQLite, one idle console page", s.page, "≤ 1")
      line("SQLite, the same page, a window later", s.pageLater, "≤ 1")
      line("SQLite, no client, after those", s.noneLater, "≤ 1")
      rows.push(
        { metric: "idle CPU, SQLite, no client (ms/s)", value: s.none.msPerS[0]!, baseline: s.none.msPerS[1]!, goal: "≤ 1 ms/s", ...base },
        { metric: "idle CPU, SQLite, one idle 2025 session (ms/s)", value: s.session.msPerS[0]!, baseline: s.session.msPerS[1]!, goal: "≤ 1 ms/s", ...base },
        { metric: "idle CPU, SQLite, one idle console page (ms/s)", value: s.page.msPerS[0]!, baseline: s.page.msPerS[1]!, goal: "≤ 1 ms/s", ...base },
        { metric: "idle CPU, SQLite, one idle console page, a window later (ms/s)", value: s.pageLater.msPerS[0]!, baseline: s.pageLater.msPerS[1]!, goal: "≤ 1 ms/s", ...base },
        { metric: "idle CPU, SQLite, no client, after those windows (ms/s)", value: s.noneLater.msPerS[0]!, baseline: s.noneLater.msPerS[1]!, goal: "≤ 1 ms/s", ...base }
      )
    }
    if (pgResult !== undefined) {
      for (const [label, both] of [["", pgResult.first], [", a window later", pgResult.later]] as const) {
        const p = both.bridge
        const [alone, ...replicas] = p.msPerS.slice(0, -1)
        const worst = Math.max(...replicas)
        console.log(`${`PostgreSQL, 2 replicas, no client${label} (each)`.padEnd(44)} ${replicas.map(f).join(" ")}  (bare node:http ${f(p.msPerS.at(-1)!)}; load ${p.load})  goal ≤ 2`)
        console.log(`${`PostgreSQL, one daemon without a cluster${label}`.padEnd(44)} ${f(alone!)}`)
        rows.push(
          { metric: `idle CPU, PostgreSQL replica (of 2), no client${label}, the busier (ms/s)`, value: worst, baseline: p.msPerS.at(-1)!, goal: "≤ 2 ms/s", ...base },
          { metric: `idle CPU, PostgreSQL, one daemon without a cluster, no client${label} (ms/s)`, value: alone!, baseline: p.msPerS.at(-1)!, goal: "≤ 2 ms/s", ...base }
        )
        if (both.floor.length > 0) {
          const below = floorReport(both.floor, label)
          console.log(`below the bridge, the same window${label}:`)
          for (const l of below.lines) console.log(l)
          rows.push(...below.rows)
        }
      }
    }
    console.log(`BENCH_JSON ${JSON.stringify({ bench: "idle", rows })}`)
  } finally {
    await bare.stop()
  }
}
