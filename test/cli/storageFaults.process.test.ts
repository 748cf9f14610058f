/**
 * Start-up and storage faults as an operator meets them, in child processes: each ends in one line
 * naming the path or port and what to do, exit 1, never a stack trace or Effect's
 * `SqlError: Failed to execute statement`. Root ignores permission bits, so the faults are real
 * ones made in a private mount namespace (`unshare -m`): a read-only bind mount over the data
 * folder, and a 2 MiB tmpfs filled to the last byte for a full disk. Nothing is mounted outside
 * the child's namespace. A port in use is a listener of the test's own.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { spawnDaemon } from "../support/daemonProcess.ts"
import { freeLoopbackPort as freePort } from "../support/freePort.ts"
import { usePostgres } from "../support/postgres.ts"
import { runProcess } from "../support/runProcess.ts"

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")
const BIN = path.join(REPO, "bin", "agent-bridge.js")

const env = (): NodeJS.ProcessEnv => {
  const out: NodeJS.ProcessEnv = { AGENT_BRIDGE_FROM_SOURCE: "1" }
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("AGENT_BRIDGE_") && k !== "NODE_OPTIONS") out[k] = v
  return out
}

interface Ran { readonly code: number | null; readonly stdout: string; readonly stderr: string }

/**
 * The bounds. Each CLI child starts the TypeScript sources through tsx: about 5 s of CPU, which
 * took 33 to 40 s of wall time each on the 2-core machine at load average 36 (other jobs), so the
 * old 50 s per child and vitest's 30 s per test ended passing runs there; a test here runs up to
 * three children and a daemon.
 */
const CHILD_TIMEOUT_MS = 150_000
/** The replicas' shared secret a daemon on a storage.url with a cluster port needs (docs/DEPLOY.md). */
const CLUSTER_SECRET = "storage-faults-cluster-secret-0123456789"
const PROCESS_TEST_TIMEOUT = 480_000

const run = (command: string, args: ReadonlyArray<string>, cwd: string): Promise<Ran> =>
  runProcess(command, args, { cwd: cwd, env: env(), timeoutMs: CHILD_TIMEOUT_MS }).then((r) => ({ code: r.status, stdout: r.stdout, stderr: r.stderr }))

const oneLine = (r: Ran) => {
  expect(r.code).toBe(1)
  expect(r.stderr).not.toMatch(/^\s+at /m)
  expect(r.stderr).not.toContain("FiberFailure")
  expect(r.stderr).not.toContain("Failed to execute statement")
  // Log lines (the embedded simulator's start) may come before; the answer is the last line.
  return r.stderr.trim().split("\n").at(-1) ?? ""
}

const canUnshare = spawnSync("unshare", ["-m", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt && umount /mnt"], { stdio: "ignore" }).status === 0

let dir = ""
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-bridge-faults-"))
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const writeConfig = (name: string, yaml: string) => {
  const file = path.join(dir, name)
  fs.writeFileSync(file, yaml)
  return file
}

/** A shell line that runs the CLI with `args` (quoted for sh). */
const cliLine = (...args: ReadonlyArray<string>) => [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ")

describe("start-up faults", { timeout: PROCESS_TEST_TIMEOUT }, () => {
  it("a port in use is one line naming the address and the setting", async () => {
    const blocker = net.createServer()
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve))
    const port = (blocker.address() as net.AddressInfo).port
    try {
      const config = writeConfig("port.yaml", `bridge: {port: ${port}, data_dir: ${path.join(dir, "port-data")}}\n`)
      const line = oneLine(await run(process.execPath, [BIN, "serve", "--config", config], dir))
      expect(line).toBe(`agent-bridge serve: cannot listen on 127.0.0.1:${port}: it is in use by another process (EADDRINUSE); stop the other process or set bridge.port / bridge.host`)
    } finally {
      await new Promise((resolve) => blocker.close(resolve))
    }
  })
})

describe("on a storage.url", { timeout: PROCESS_TEST_TIMEOUT }, () => {
  const pg = usePostgres()

  it("serve, client add, runs and doctor work on the PostgreSQL database, never print its password, and make no SQLite file", async (ctx) => {
    // The test server trusts 127.0.0.1, so a password in the URL is accepted and unused: it stands
    // for the secret part an operator's URL carries.
    const url = new URL(await pg.database(ctx))
    url.password = "s3cret-pw"
    const data = path.join(dir, "pg-data")
    const port = await freePort()
    const config = writeConfig("pg.yaml", `bridge: {port: ${port}, data_dir: ${data}}\nstorage: {url: "${url.toString()}"}\ncluster: {secret: "${CLUSTER_SECRET}"}\n`)
    const server = `127.0.0.1:${url.port}${url.pathname}`

    const added = await run(process.execPath, [BIN, "client", "add", "dave", "--config", config], dir)
    expect(added.code, added.stderr).toBe(0)
    expect(added.stdout).toMatch(/hal0bk_/)
    const daemon = await spawnDaemon({ configFile: config, port })
    try {
      // The key the CLI wrote to PostgreSQL lets dave in to the daemon reading the same database.
      const key = /hal0bk_[A-Za-z0-9_-]+/.exec(added.stdout)![0]
      const answer = await fetch(`${daemon.url}/mcp/agents/mcp`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } } })
      })
      expect(answer.status).toBe(200)
      const runs = await run(process.execPath, [BIN, "runs", "list", "--config", config], dir)
      expect(runs.code, runs.stderr).toBe(0)
      expect(runs.stdout).toContain("no runs")
      const doctor = await run(process.execPath, [BIN, "doctor", "--config", config], dir)
      expect(doctor.stdout).toContain(`PostgreSQL store at ${server} writable`)
      for (const r of [added, runs, doctor]) expect(r.stderr + r.stdout).not.toContain("s3cret-pw")
      expect(daemon.output()).not.toContain("s3cret-pw")
      for (const r of [added, runs, doctor]) expect(r.stderr + r.stdout).not.toContain(CLUSTER_SECRET)
      expect(daemon.output()).not.toContain(CLUSTER_SECRET)
    } finally {
      await daemon.kill()
    }
    expect(fs.existsSync(path.join(data, "bridge.db"))).toBe(false)
  })
})

describe.skipIf(!canUnshare)("storage faults in a private mount namespace", { timeout: PROCESS_TEST_TIMEOUT }, () => {
  it("a read-only data folder: serve and client add each end in one line naming it", async () => {
    const data = path.join(dir, "ro-data")
    fs.mkdirSync(data)
    const config = writeConfig("ro.yaml", `bridge: {port: 0, data_dir: ${data}}\n`)
    const inNamespace = (verb: ReadonlyArray<string>) =>
      run("unshare", ["-m", "--propagation", "private", "sh", "-c", `mount --bind '${data}' '${data}' && mount -o remount,bind,ro '${data}' && ${cliLine(...verb, "--config", config)}`], dir)
    const serve = oneLine(await inNamespace(["serve"]))
    expect(serve).toContain(`agent-bridge serve failed: the bridge may not write ${data}`)
    expect(serve).toContain("EROFS")
    expect(serve).toContain("make it writable for the bridge, then retry (bridge.data_dir)")
    const client = oneLine(await inNamespace(["client", "add", "dave"]))
    expect(client).toContain(`client failed: the bridge may not write ${data}`)
  })

  it("a full disk: client add ends in one line naming the data folder, not SqlError", async () => {
    const mount = path.join(dir, "full")
    fs.mkdirSync(mount)
    const data = path.join(mount, "data")
    const config = writeConfig("full.yaml", `bridge: {port: 0, data_dir: ${data}}\n`)
    const script = [
      `mount -t tmpfs -o size=2m tmpfs '${mount}'`,
      `${cliLine("client", "add", "alice", "--config", config)} > /dev/null`,
      `dd if=/dev/zero of='${mount}/fill' bs=64k 2>/dev/null; true`,
      cliLine("client", "add", "bob", "--config", config)
    ].join(" && ")
    const line = oneLine(await run("unshare", ["-m", "--propagation", "private", "sh", "-c", script], dir))
    expect(line).toMatch(/^client failed: the disk holding .* (is full|reported an I\/O error) \(SQLITE_[A-Z_]+\); /)
    expect(line).toContain(data)
  })
})
