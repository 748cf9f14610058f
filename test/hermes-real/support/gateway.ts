/**
 * Starts the real Hermes gateway (`hermes gateway run`, from the venv `scripts/hermes-venv.sh`
 * made) with only its API server platform, in a generated HERMES_HOME, behind our fake model
 * provider, with every proxy variable pointing at the refusing sink. `stop()` ends the process
 * group and removes the temporary folders.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { freeLoopbackPort as freePort } from "../../support/freePort.ts"
import { FAKE_MODEL, type FakeLlm, startFakeLlm } from "../../support/fakeLlm.ts"
import { type ProxySink, startProxySink } from "./proxySink.ts"

export interface RealHermes {
  readonly url: string
  readonly key: string
  /** `version` from `/health`. */
  readonly version: string
  readonly home: string
  readonly scratch: string
  readonly llm: FakeLlm
  readonly sink: ProxySink
  /** Everything the gateway wrote to stdout and stderr so far (every start of it). */
  readonly output: () => string
  /**
   * Kills the gateway (SIGKILL: a crash, no drain; a SIGTERM would wait for live runs) and starts it
   * again on the same port and home.
   */
  readonly restart: () => Promise<void>
  readonly stop: () => Promise<void>
}

/** The `hermes` executable of the project's venv; the npm script sets it after the install. */
export const hermesBin = (): string => {
  const bin = process.env.AGENT_BRIDGE_HERMES_BIN
  if (bin === undefined || bin === "" || !fs.existsSync(bin)) {
    throw new Error("AGENT_BRIDGE_HERMES_BIN is not set to an installed hermes: run `npm run test:hermes` (scripts/hermes-test.sh)")
  }
  return bin
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

const configYaml = (llmUrl: string, scratch: string) => `model:
  provider: custom
  base_url: ${llmUrl}
  default: ${FAKE_MODEL}
  api_key: dummy
  context_length: 131072
approvals:
  mode: manual
terminal:
  backend: local
  cwd: ${scratch}
security:
  tirith_enabled: false
  allow_lazy_installs: false
# The 0.22 fork refreshes a model catalogue from outside hosts 30 s after start; older builds ignore the key.
model_catalog:
  enabled: false
`

const waitForHealth = async (url: string, child: ChildProcess, output: () => string, ms: number): Promise<string> => {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`hermes gateway exited with ${child.exitCode}:\n${output().slice(-4000)}`)
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) })
      if (res.ok) {
        const body = (await res.json()) as { version?: string }
        return body.version ?? "unknown"
      }
    } catch {
      // not listening yet
    }
    await sleep(200)
  }
  throw new Error(`hermes gateway did not answer /health within ${ms} ms:\n${output().slice(-4000)}`)
}

export const startRealHermes = async (options: { readonly startTimeoutMs?: number } = {}): Promise<RealHermes> => {
  const bin = hermesBin()
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "agent-bridge-hermes-"))
  const home = path.join(root, "hermes-home")
  const scratch = path.join(root, "scratch")
  fs.mkdirSync(home, { mode: 0o700 })
  fs.mkdirSync(scratch)
  fs.mkdirSync(path.join(scratch, "build"))
  const sink = await startProxySink()
  const llm = await startFakeLlm({ scratchDir: scratch })
  const port = await freePort()
  const key = `test-key-${randomBytes(12).toString("hex")}`
  fs.writeFileSync(path.join(home, ".env"), [
    "API_SERVER_ENABLED=true", `API_SERVER_KEY=${key}`, "API_SERVER_HOST=127.0.0.1", `API_SERVER_PORT=${port}`, ""
  ].join("\n"), { mode: 0o600 })
  fs.writeFileSync(path.join(home, "config.yaml"), configYaml(llm.url, scratch))
  let log = ""
  const env = {
    PATH: `${path.dirname(bin)}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    HOME: root,
    HERMES_HOME: home,
    LANG: "C.UTF-8",
    HTTP_PROXY: sink.url, HTTPS_PROXY: sink.url, ALL_PROXY: sink.url,
    http_proxy: sink.url, https_proxy: sink.url, all_proxy: sink.url,
    NO_PROXY: "127.0.0.1,localhost", no_proxy: "127.0.0.1,localhost",
    PYTHONDONTWRITEBYTECODE: "1"
  }
  const launch = () => {
    const c = spawn(bin, ["gateway", "run"], { cwd: scratch, detached: true, stdio: ["ignore", "pipe", "pipe"], env })
    c.stdout?.on("data", (chunk: Buffer) => { log += chunk.toString("utf8") })
    c.stderr?.on("data", (chunk: Buffer) => { log += chunk.toString("utf8") })
    return c
  }
  let child = launch()
  const output = () => log
  const url = `http://127.0.0.1:${port}`
  const end = async (c: ChildProcess, signal: NodeJS.Signals = "SIGTERM") => {
    if (c.exitCode === null && c.signalCode === null && c.pid !== undefined) {
      try { process.kill(-c.pid, signal) } catch { /* already gone */ }
      const deadline = Date.now() + 10_000
      while (c.exitCode === null && c.signalCode === null && Date.now() < deadline) await sleep(100)
      if (c.exitCode === null && c.signalCode === null) {
        try { process.kill(-c.pid, "SIGKILL") } catch { /* already gone */ }
        const last = Date.now() + 10_000
        while (c.exitCode === null && c.signalCode === null && Date.now() < last) await sleep(100)
      }
    }
  }
  let stopped = false
  const stop = async () => {
    if (stopped) return
    stopped = true
    await end(child)
    await llm.close()
    await sink.close()
    fs.rmSync(root, { recursive: true, force: true })
  }
  const restart = async () => {
    await end(child, "SIGKILL")
    log += "\n--- killed and started again by the test ---\n"
    child = launch()
    await waitForHealth(url, child, output, options.startTimeoutMs ?? 90_000)
  }
  try {
    const version = await waitForHealth(url, child, output, options.startTimeoutMs ?? 90_000)
    return { url, key, version, home, scratch, llm, sink, output, restart, stop }
  } catch (e) {
    await stop()
    throw e
  }
}
