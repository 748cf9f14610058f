/**
 * The `agent-bridge` command line as an operator runs it (`node bin/agent-bridge.js …`, a child
 * process over a temporary data directory): usage errors are a clear message and exit 2 (never a
 * stack trace, never exit 0), an unknown flag or a flag without its value is refused before anything
 * happens, and `--json` output on stdout is JSON alone (logs go to stderr).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runProcess } from "../support/runProcess.ts"

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")
const BIN = path.join(REPO, "bin", "agent-bridge.js")

interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

let dir = ""
let configFile = ""

const env = (): NodeJS.ProcessEnv => {
  const out: NodeJS.ProcessEnv = { AGENT_BRIDGE_FROM_SOURCE: "1" }
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith("AGENT_BRIDGE_") || k === "API_SERVER_KEY" || k === "NODE_OPTIONS") continue
    out[k] = v
  }
  return out
}

/**
 * The bounds for a loaded machine: each CLI child starts the sources through tsx, about 5 s of CPU
 * that took 33 to 40 s of wall time at load average 36 (other jobs), where `--version` ran past the
 * 50 s this was and the usage-error tests took 60 to 70 s.
 */
const CHILD_TIMEOUT_MS = 150_000
const PROCESS_TEST_TIMEOUT = 480_000

const cli = (...args: ReadonlyArray<string>): Promise<Ran> =>
  runProcess(process.execPath, [BIN, ...args, ...(args.includes("--config") || args[0] === "hermes-sim" ? [] : ["--config", configFile])], { cwd: dir, env: env(), timeoutMs: CHILD_TIMEOUT_MS }).then((r) => ({ code: r.status, stdout: r.stdout, stderr: r.stderr }))

const noStackTrace = (r: Ran) => {
  expect(r.stderr).not.toContain("FiberFailure")
  expect(r.stderr).not.toMatch(/^\s+at /m)
}

const clientNames = async (): Promise<ReadonlyArray<string>> => {
  const r = await cli("client", "list", "--json")
  expect(r.code).toBe(0)
  return (JSON.parse(r.stdout) as { clients: ReadonlyArray<{ name: string }> }).clients.map((c) => c.name)
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ab-cli-"))
  configFile = path.join(dir, "agent-bridge.yaml")
  fs.writeFileSync(configFile, `bridge: {data_dir: ${JSON.stringify(path.join(dir, "data"))}}\n`)
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("agent-bridge client: usage errors", () => {
  it("'client add' without NAME and an unknown sub-command say how to use it and exit 2, without a stack trace", async () => {
    for (const args of [["client", "add"], ["client", "frobnicate"], ["client", "revoke"]]) {
      const r = await cli(...args)
      expect(r.code).toBe(2)
      expect(r.stderr).toContain("usage: agent-bridge client")
      noStackTrace(r)
    }
  }, PROCESS_TEST_TIMEOUT)

  it("refuses --scope without a value and an unknown flag, and admits nobody", async () => {
    const missing = await cli("client", "add", "alice", "--scope")
    expect([missing.code, missing.stdout]).toEqual([2, ""])
    expect(missing.stderr).toContain("--scope")
    const unknown = await cli("client", "add", "bob", "--scopes", "memory")
    expect([unknown.code, unknown.stdout]).toEqual([2, ""])
    expect(unknown.stderr).toContain("--scopes")
    expect(await clientNames()).toEqual([])
  }, PROCESS_TEST_TIMEOUT)

  it("refuses --config without a value instead of falling back to the default configuration", async () => {
    const r = await cli("client", "list", "--config")
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("--config")
  }, PROCESS_TEST_TIMEOUT)
})

describe("agent-bridge inbox and doctor", () => {
  it("inbox list --json and doctor --json print JSON alone on stdout", async () => {
    const inbox = await cli("inbox", "list", "--json")
    expect(inbox.code).toBe(0)
    expect(JSON.parse(inbox.stdout)).toEqual({ rows: [] })
    const doctor = await cli("doctor", "--json")
    expect(JSON.parse(doctor.stdout).rows[0]).toMatchObject({ check: "agent-bridge" })
  }, PROCESS_TEST_TIMEOUT)

  it("refuses inbox approve --choice without a value, and an unknown flag on doctor", async () => {
    const choice = await cli("inbox", "approve", "some-id", "--choice")
    expect(choice.code).toBe(2)
    expect(choice.stderr).toContain("--choice")
    const state = await cli("inbox", "list", "--state")
    expect(state.code).toBe(2)
    const doctor = await cli("doctor", "--bogus")
    expect(doctor.code).toBe(2)
    expect(doctor.stderr).toContain("--bogus")
  }, PROCESS_TEST_TIMEOUT)
})

describe("agent-bridge hermes-sim", () => {
  it("a simulator that cannot start says why in one line, without a stack trace", async () => {
    const r = await cli("hermes-sim", "--profiles", "Bad_Name")
    expect(r.code).toBe(1)
    expect(r.stderr.trim()).toBe("hermes-sim: simulator: invalid profile name 'Bad_Name'")
    noStackTrace(r)
  }, PROCESS_TEST_TIMEOUT)
})

describe("agent-bridge --version", () => {
  it("prints the package's version and exits 0, as a flag or a verb", async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")) as { version: string }
    for (const args of [["--version"], ["version"]]) {
      const r = await cli(...args)
      expect(r.code).toBe(0)
      expect(r.stdout.trim()).toBe(pkg.version)
    }
  }, PROCESS_TEST_TIMEOUT)
})
