/**
 * Shutdown has a deadline (issue 37 item 8e). A replica on PostgreSQL given SIGTERM while its
 * database server is down closed its port and never exited (it left 90 s after the server came
 * back): its finalizers (the cluster's shard locks, the followers' last writes, the pool) wait for
 * the database. Now, `bridge.shutdown_timeout_s` after the signal, the process logs one line saying
 * so and exits (code 1), whatever is still waiting.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as YAML from "yaml"
import { afterAll, describe, expect, it } from "vitest"
import { connectMcp, tempDir } from "../support/daemon.ts"
import { type DaemonProcess, spawnDaemon } from "../support/daemonProcess.ts"
import { freeLoopbackPort } from "../support/freePort.ts"
import { usePostgres } from "../support/postgres.ts"

const DEADLINE_S = 4

describe("SIGTERM during a PostgreSQL outage", () => {
  const pg = usePostgres()
  let daemon: DaemonProcess | undefined
  afterAll(async () => {
    if (daemon?.isRunning()) await daemon.kill("SIGKILL")
  })

  it("exits at bridge.shutdown_timeout_s with a logged line, though the database does not answer", async (ctx) => {
    const server = pg.server(ctx)
    const url = await pg.database(ctx)
    const dir = tempDir()
    const port = await freeLoopbackPort()
    const configFile = path.join(dir, "agent-bridge.yaml")
    fs.writeFileSync(configFile, YAML.stringify({
      bridge: { port, data_dir: path.join(dir, "data"), shutdown_timeout_s: DEADLINE_S },
      storage: { url },
      cluster: { port: await freeLoopbackPort() }
    }))
    daemon = await spawnDaemon({ configFile, port, readyTimeoutMs: 90_000 })
    const adminKey = fs.readFileSync(path.join(dir, "data", "admin.key"), "utf8").trim()
    const client = await connectMcp(daemon.url, adminKey, "agents", "modern")
    // A run being followed: its follower holds the cluster's shard and writes events as they come.
    const started = await client.callTool({ name: "agent_run", arguments: { agent: "hermes", input: "[sim:deltas=200,slow=60s] keep going" } })
    expect(started.isError).toBeFalsy()
    await client.close().catch(() => undefined)

    await server.stopServer()
    try {
      await new Promise((r) => setTimeout(r, 1_000))
      const t0 = Date.now()
      process.kill(daemon.pid, "SIGTERM")
      // Bounded generously (a loaded machine), and far under the 90 s the old daemon took after the server came back.
      const exit = await Promise.race([
        daemon.exited,
        new Promise<"still running">((r) => setTimeout(() => r("still running"), 60_000))
      ])
      console.log(`SIGTERM during the outage → ${JSON.stringify(exit)} in ${Date.now() - t0} ms`)
      expect(exit).toEqual({ code: 1, signal: null })
      expect(daemon.output()).toMatch(/shutdown did not finish within 4 s/)
    } finally {
      await server.startServer()
    }
  }, 240_000)
})
