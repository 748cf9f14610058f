/**
 * SIGKILL the real daemon process mid-run and start it again over the same data directory (and, in
 * the second test, with runs waiting in the queue for Hermes's capacity): the run
 * (followed again from Hermes, which kept running) completes, its events are contiguous from seq 1
 * with no duplicate, and its output is complete. Hermes is a simulator in this test's process, so it
 * outlives the daemon.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as YAML from "yaml"
import { afterAll, describe, expect, it } from "vitest"
import { startSimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { until } from "../support/poll.ts"
import { connectMcp, tempDir } from "../support/daemon.ts"
import { spawnDaemon } from "../support/daemonProcess.ts"
import { freeLoopbackPort } from "../support/freePort.ts"
import { EVENTS_PAGE_MAX } from "../../src/domain/limits.ts"

describe("SIGKILL mid-run", () => {
  const cleanups: Array<() => Promise<unknown>> = []
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined)
  })

  it("the run completes after a restart with contiguous events and its whole output", async () => {
    const sim = await startSimulatorAsync({ generation: "new" })
    cleanups.push(() => sim.close())
    const dir = tempDir()
    const port = await freeLoopbackPort()
    const configFile = path.join(dir, "agent-bridge.yaml")
    fs.writeFileSync(configFile, YAML.stringify({
      bridge: { port, data_dir: path.join(dir, "data") },
      hermes: { url: sim.url, key: sim.profiles[0]!.key }
    }))
    const first = await spawnDaemon({ configFile, port, readyTimeoutMs: 90_000 })
    cleanups.push(() => first.kill("SIGKILL"))
    const adminKey = fs.readFileSync(path.join(dir, "data", "admin.key"), "utf8").trim()
    const client = await connectMcp(first.url, adminKey)
    const started = (await client.callTool({
      name: "agent_run",
      arguments: { agent: "hermes", input: "[sim:deltas=60,slow=8s] count slowly", idempotency_key: "sigkill-1" }
    })).structuredContent as { run_id: string }
    // Some events in the ledger (and the run far from its end), then the daemon killed the hard way.
    await until(
      async () => ((await client.callTool({ name: "agent_run_status", arguments: { run_id: started.run_id } })).structuredContent as { last_seq: number; status: string }),
      (v) => v.last_seq >= 5,
      { what: "some events in the ledger", withinMs: 60_000, everyMs: 100 }
    )
    await first.kill("SIGKILL")
    await client.close().catch(() => undefined)

    const second = await spawnDaemon({ configFile, port, readyTimeoutMs: 90_000 })
    cleanups.push(() => second.kill("SIGTERM"))
    const again = await connectMcp(second.url, adminKey)
    const waited = (await again.callTool({ name: "agent_run_wait", arguments: { run_id: started.run_id, timeout_s: 60 } }))
      .structuredContent as { status: string; output: string; last_seq: number }
    expect(waited.status).toBe("completed")
    const replay = (await again.callTool({
      name: "agent_run",
      arguments: { agent: "hermes", input: "[sim:deltas=60,slow=8s] count slowly", idempotency_key: "sigkill-1" }
    })).structuredContent as { run_id: string }
    expect(replay.run_id).toBe(started.run_id)
    const page = (await again.callTool({ name: "agent_run_events", arguments: { run_id: started.run_id, limit: EVENTS_PAGE_MAX } }))
      .structuredContent as { events: ReadonlyArray<{ seq: number; type: string; data: { text?: string } }> }
    expect(page.events.map((e) => e.seq)).toEqual(page.events.map((_, i) => i + 1))
    expect(page.events.filter((e) => e.type === "run.completed")).toHaveLength(1)
    expect(page.events.filter((e) => e.type === "run.started")).toHaveLength(1)
    const streamed = page.events.filter((e) => e.type === "message.text").map((e) => e.data.text ?? "").join("")
    expect(streamed).toBe(waited.output)
    expect(waited.output.length).toBeGreaterThan(0)
    await again.close()
  }, 240_000)

  it("queued runs survive a SIGKILL: each starts once after the restart and completes (issue 38)", async () => {
    const sim = await startSimulatorAsync({ generation: "new" })
    cleanups.push(() => sim.close())
    const dir = tempDir()
    const port = await freeLoopbackPort()
    const configFile = path.join(dir, "agent-bridge.yaml")
    fs.writeFileSync(configFile, YAML.stringify({
      bridge: { port, data_dir: path.join(dir, "data") },
      hermes: { url: sim.url, key: sim.profiles[0]!.key, max_concurrent_runs: 1 }
    }))
    const first = await spawnDaemon({ configFile, port, readyTimeoutMs: 90_000 })
    cleanups.push(() => first.kill("SIGKILL"))
    const adminKey = fs.readFileSync(path.join(dir, "data", "admin.key"), "utf8").trim()
    const client = await connectMcp(first.url, adminKey)
    const start = async (input: string, key?: string) =>
      (await client.callTool({ name: "agent_run", arguments: { agent: "hermes", input, ...(key === undefined ? {} : { idempotency_key: key }) } }))
        .structuredContent as { run_id: string; status: string; queue_position?: number }
    const hold = await start("[sim:slow=6s] holds the slot")
    const q1 = await start("[sim:slow=300ms] queued one", "queued-1")
    const q2 = await start("[sim:slow=300ms] queued two")
    expect([hold.status, q1.status, q1.queue_position, q2.status, q2.queue_position]).toEqual(["running", "queued", 1, "queued", 2])
    await first.kill("SIGKILL")
    await client.close().catch(() => undefined)

    const second = await spawnDaemon({ configFile, port, readyTimeoutMs: 90_000 })
    cleanups.push(() => second.kill("SIGTERM"))
    const again = await connectMcp(second.url, adminKey)
    for (const q of [q1, q2]) {
      const waited = (await again.callTool({ name: "agent_run_wait", arguments: { run_id: q.run_id, timeout_s: 120 } }))
        .structuredContent as { status: string }
      expect(waited.status).toBe("completed")
      const page = (await again.callTool({ name: "agent_run_events", arguments: { run_id: q.run_id, limit: EVENTS_PAGE_MAX } }))
        .structuredContent as { events: ReadonlyArray<{ seq: number; type: string }> }
      expect(page.events.map((e) => e.seq)).toEqual(page.events.map((_, i) => i + 1))
      expect(page.events.slice(0, 2).map((e) => e.type)).toEqual(["run.queued", "run.started"])
      expect(page.events.filter((e) => e.type === "run.started")).toHaveLength(1)
    }
    const replay = (await again.callTool({ name: "agent_run", arguments: { agent: "hermes", input: "[sim:slow=300ms] queued one", idempotency_key: "queued-1" } }))
      .structuredContent as { run_id: string }
    expect(replay.run_id).toBe(q1.run_id)
    // Hermes started each queued run exactly once.
    const inputs = [...sim.handle.state.runs.values()].map((r) => r.input)
    expect(inputs.filter((i) => i.includes("queued one"))).toHaveLength(1)
    expect(inputs.filter((i) => i.includes("queued two"))).toHaveLength(1)
    await again.close()
  }, 300_000)
})
