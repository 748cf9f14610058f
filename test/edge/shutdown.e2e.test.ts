/**
 * The real daemon process drains on SIGTERM: a wait still open answers `bridge.unavailable` (in both
 * protocol eras) instead of having its connection reset, open MCP sessions are closed, and it exits
 * with code 0.
 * (The time it takes is printed, not asserted: the 2 s target is measured, machines here are noisy.)
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as YAML from "yaml"
import { describe, expect, it } from "vitest"
import { spawnDaemon } from "../support/daemonProcess.ts"
import { freeLoopbackPort } from "../support/freePort.ts"
import { connectMcp, errorTextOf, tempDir } from "../support/daemon.ts"
import { metricValue } from "../support/metrics.ts"
import { until } from "../support/poll.ts"

describe("SIGTERM", () => {
  it("answers open waits with bridge.unavailable, drains open sessions and exits 0", async () => {
    const dir = tempDir()
    const port = await freeLoopbackPort()
    const configFile = path.join(dir, "agent-bridge.yaml")
    fs.writeFileSync(configFile, YAML.stringify({ bridge: { port, data_dir: path.join(dir, "data") } }))
    const daemon = await spawnDaemon({ configFile, port, readyTimeoutMs: 90_000 })
    const adminKey = fs.readFileSync(path.join(dir, "data", "admin.key"), "utf8").trim()
    const client = await connectMcp(daemon.url, adminKey, "agents", "modern")
    const legacy = await connectMcp(daemon.url, adminKey, "agents", "legacy")
    const started = await client.callTool({ name: "agent_run", arguments: { agent: "hermes", input: "[sim:slow=30s] keep going" } })
    expect(started.isError).toBeFalsy()
    const runId = (started.structuredContent as { run_id: string }).run_id
    const waits = [client, legacy].map((c) => c.callTool({ name: "agent_run_wait", arguments: { run_id: runId, timeout_s: 30 } }))
    // Both waits are open (the daemon counts them) before the signal.
    await until(() => metricValue({ url: daemon.url, adminKey }, "agent_bridge_waits_open"), (n) => n >= 2, { what: "both waits opened" })
    const t0 = Date.now()
    await daemon.kill("SIGTERM")
    for (const answer of await Promise.all(waits)) {
      expect(errorTextOf(answer)).toMatch(/^Error executing tool agent_run_wait: bridge\.unavailable: /)
    }
    const exit = await daemon.exited
    console.log(`SIGTERM → exit ${exit.code} in ${Date.now() - t0} ms`)
    expect(exit).toEqual({ code: 0, signal: null })
    await client.close().catch(() => undefined)
    await legacy.close().catch(() => undefined)
  }, 120_000)
})
