/**
 * The real daemon as a child process (`node bin/agent-bridge.js serve --config FILE`), for tests
 * that must kill it the hard way (SIGKILL) and start it again over the same data directory. The
 * caller picks the port (see freePort.ts) so the daemon comes back where its clients expect it.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as YAML from "yaml"
import { pgDatabaseFor, TEST_DIALECT } from "./testDb.ts"
import { sleep } from "./poll.ts"

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")
const BIN = path.join(REPO, "bin", "agent-bridge.js")
const OUTPUT_KEPT = 64 * 1024

export interface DaemonProcess {
  readonly pid: number
  readonly url: string
  /** Resolves when the process has exited (by itself or killed). */
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
  readonly isRunning: () => boolean
  /** Sends a signal and waits for the exit. */
  readonly kill: (signal?: NodeJS.Signals) => Promise<void>
  /** True once the caller has sent a signal through `kill` (so an exit was asked for). */
  readonly killedByCaller: () => boolean
  /** The newest stdout and stderr output (for failure messages). */
  readonly output: () => string
}

export interface SpawnOptions {
  readonly configFile: string
  readonly port: number
  /** How long start-up may take before the test gives up (a cold tsx start is slow on a busy box). */
  readonly readyTimeoutMs?: number
  /**
   * Start it in a network namespace of its own (`unshare -n`, only loopback up, as root): nothing it
   * dials can leave it, and every address but loopback is unroutable. The test reaches it with
   * `fetchInNamespace` (its `url` is the namespace's loopback, not the test's).
   */
  readonly isolatedNetwork?: boolean
  /** With `isolatedNetwork`: `/etc/hosts` lines it sees in place of the machine's (a mount namespace of its own), so a name resolves where the test says. */
  readonly hosts?: ReadonlyArray<string>
}

/** The network namespace of a process, as `nsenter --net=` takes it. */
const netnsOf = (pid: number) => `/proc/${pid}/ns/net`

/** Whether this machine lets the tests make network namespaces (`unshare -n`, root). */
export const canIsolateNetwork = (): Promise<boolean> =>
  new Promise((resolve) => {
    const child = spawn("unshare", ["-n", "-m", "--propagation", "private", "sh", "-c", "mount --bind /etc/hostname /etc/hostname && ip link set lo up"], { stdio: "ignore" })
    child.once("error", () => resolve(false))
    child.once("exit", (code) => resolve(code === 0))
  })

/**
 * A fetch made from inside the network namespace of process `pid` (a node child under `nsenter`):
 * the answer's status and text, or a rejection when nothing answered.
 */
export const fetchInNamespace = (pid: number, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
  new Promise<{ readonly status: number; readonly text: string }>((resolve, reject) => {
    const script = `fetch(process.argv[1], JSON.parse(process.argv[2])).then(async (r) => process.stdout.write(JSON.stringify({ status: r.status, text: await r.text() })), (e) => { process.stderr.write(String(e)); process.exit(1) })`
    const child = spawn("nsenter", [`--net=${netnsOf(pid)}`, process.execPath, "-e", script, url, JSON.stringify({ ...init, signal: undefined })], { stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")))
    child.stderr.on("data", (c: Buffer) => (err += c.toString("utf8")))
    child.once("error", reject)
    child.once("exit", (code) => (code === 0 ? resolve(JSON.parse(out) as { status: number; text: string }) : reject(new Error(`fetch in the namespace failed: ${err}`))))
  })

/** The environment without anything that would override the test's config file. */
const cleanEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith("AGENT_BRIDGE_") || k === "API_SERVER_KEY" || k === "NODE_OPTIONS") continue
    env[k] = v
  }
  return env
}

/**
 * The `cluster.secret` of a test daemon whose file names none: a daemon on PostgreSQL is a replica
 * (its cluster port needs the secret), in the PostgreSQL project and wherever a test's config names
 * a `storage.url` of its own; on SQLite the key is unused.
 */
export const TEST_CLUSTER_SECRET = "test-daemon-cluster-secret-0123456789abcdef"

/**
 * In the PostgreSQL project, the database of the config's data dir (testDb.ts) as
 * `AGENT_BRIDGE_STORAGE_URL`, unless the file names a storage.url of its own; in every project, a
 * cluster secret unless the file names one.
 */
const storageEnv = async (configFile: string): Promise<NodeJS.ProcessEnv> => {
  const yaml = (YAML.parse(fs.readFileSync(configFile, "utf8")) ?? {}) as {
    bridge?: { data_dir?: string }
    storage?: { url?: string }
    cluster?: { secret?: string; secret_file?: string }
  }
  const secret = yaml.cluster?.secret === undefined && yaml.cluster?.secret_file === undefined ? { AGENT_BRIDGE_CLUSTER_SECRET: TEST_CLUSTER_SECRET } : {}
  if (TEST_DIALECT !== "pg" || yaml.storage?.url !== undefined) return secret
  const dataDir = path.resolve(path.dirname(configFile), yaml.bridge?.data_dir ?? "data")
  return { AGENT_BRIDGE_STORAGE_URL: await pgDatabaseFor(dataDir), ...secret }
}


/** Starts the daemon; resolves once `/healthz` says it is ready. Rejects (and kills it) otherwise. */
export const spawnDaemon = async (options: SpawnOptions): Promise<DaemonProcess> => {
  const url = `http://127.0.0.1:${options.port}`
  const argv = [process.execPath, BIN, "serve", "--config", options.configFile]
  let hostsFile = ""
  if (options.isolatedNetwork === true && options.hosts !== undefined) {
    hostsFile = path.join(path.dirname(options.configFile), `hosts-${process.pid}-${Date.now()}`)
    fs.writeFileSync(hostsFile, ["127.0.0.1 localhost", "::1 localhost", ...options.hosts, ""].join("\n"))
  }
  const isolate = `${hostsFile === "" ? "" : `mount --bind '${hostsFile}' /etc/hosts && `}ip link set lo up && exec "$@"`
  const child: ChildProcess = spawn(
    options.isolatedNetwork === true ? "unshare" : argv[0]!,
    options.isolatedNetwork === true ? ["-n", "-m", "--propagation", "private", "sh", "-c", isolate, "sh", ...argv] : argv.slice(1),
    {
    cwd: REPO,
    env: { ...cleanEnv(), ...(await storageEnv(options.configFile)) },
    stdio: ["ignore", "pipe", "pipe"]
    }
  )
  let output = ""
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-OUTPUT_KEPT)
  }
  child.stdout?.on("data", keep)
  child.stderr?.on("data", keep)
  let running = true
  let exitedAs = ""
  // Never leave a daemon behind, even when the test process ends without its cleanup (a timeout).
  const orphanGuard = () => {
    if (running) child.kill("SIGKILL")
  }
  process.once("exit", orphanGuard)
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      running = false
      exitedAs = signal !== null ? `signal ${signal}` : `code ${code}`
      process.removeListener("exit", orphanGuard)
      resolve({ code, signal })
    })
  })
  let signalled = false
  const kill = async (signal: NodeJS.Signals = "SIGKILL") => {
    signalled = true
    if (running) child.kill(signal)
    await exited
  }
  const handle: DaemonProcess = {
    pid: child.pid ?? -1,
    url,
    exited,
    isRunning: () => running,
    kill,
    killedByCaller: () => signalled,
    output: () => output
  }

  const deadline = Date.now() + (options.readyTimeoutMs ?? 90_000)
  while (Date.now() < deadline) {
    if (!running) throw new Error(`the daemon exited during start-up (${exitedAs}):\n${output}`)
    const health = options.isolatedNetwork === true
      ? fetchInNamespace(handle.pid, `${url}/healthz`).then((r) => r.text)
      : fetch(`${url}/healthz`, { signal: AbortSignal.timeout(3_000) }).then((r) => r.text())
    const ready = await health.then((text) => (JSON.parse(text) as { ready?: boolean }).ready === true).catch(() => false)
    if (ready) return handle
    await sleep(100)
  }
  await kill()
  throw new Error(`the daemon was not ready within ${options.readyTimeoutMs ?? 90_000} ms:\n${output}`)
}
