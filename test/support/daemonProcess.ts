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
}

/** The environment without anything that would override the test's config file. */
const cleanEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith("AGENT_BRIDGE_") || k === "API_SERVER_KEY" || k === "NODE_OPTIONS") continue
    env[k] = v
  }
  return env
}

/** The `cluster.secret` of a PostgreSQL project's daemon whose file names none (a daemon on a port is a replica there). */
export const TEST_CLUSTER_SECRET = "test-daemon-cluster-secret-0123456789abcdef"

/**
 * In the PostgreSQL project, the database of the config's data dir (testDb.ts) as
 * `AGENT_BRIDGE_STORAGE_URL`, unless the file names a storage.url of its own, and a cluster secret
 * unless the file names one; else nothing.
 */
const storageEnv = async (configFile: string): Promise<NodeJS.ProcessEnv> => {
  if (TEST_DIALECT !== "pg") return {}
  const yaml = (YAML.parse(fs.readFileSync(configFile, "utf8")) ?? {}) as {
    bridge?: { data_dir?: string }
    storage?: { url?: string }
    cluster?: { secret?: string; secret_file?: string }
  }
  const secret = yaml.cluster?.secret === undefined && yaml.cluster?.secret_file === undefined ? { AGENT_BRIDGE_CLUSTER_SECRET: TEST_CLUSTER_SECRET } : {}
  if (yaml.storage?.url !== undefined) return secret
  const dataDir = path.resolve(path.dirname(configFile), yaml.bridge?.data_dir ?? "data")
  return { AGENT_BRIDGE_STORAGE_URL: await pgDatabaseFor(dataDir), ...secret }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Starts the daemon; resolves once `/healthz` says it is ready. Rejects (and kills it) otherwise. */
export const spawnDaemon = async (options: SpawnOptions): Promise<DaemonProcess> => {
  const url = `http://127.0.0.1:${options.port}`
  const child: ChildProcess = spawn(process.execPath, [BIN, "serve", "--config", options.configFile], {
    cwd: REPO,
    env: { ...cleanEnv(), ...(await storageEnv(options.configFile)) },
    stdio: ["ignore", "pipe", "pipe"]
  })
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
    const ready = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(3_000) })
      .then(async (r) => ((await r.json()) as { ready?: boolean }).ready === true)
      .catch(() => false)
    if (ready) return handle
    await sleep(100)
  }
  await kill()
  throw new Error(`the daemon was not ready within ${options.readyTimeoutMs ?? 90_000} ms:\n${output}`)
}
