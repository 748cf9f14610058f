/**
 * The run tools through the whole daemon over real HTTP (MCP Streamable HTTP, the tool modules,
 * the live HermesClient, the simulator): progress notifications during a wait, a cancelled wait that
 * leaves the run going, isolation as the client sees it, and re-attach across a daemon restart.
 */
import type { Client } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { connectMcp, errorTextOf, startDaemon, type TestDaemon, tempDir, testConfig } from "../support/daemon.ts"
import { until } from "../support/poll.ts"

type Json = Record<string, any>
const structured = (r: object): Json => (r as { structuredContent: Json }).structuredContent
const call = (c: Client, name: string, args: Json, options?: Parameters<Client["callTool"]>[1]) =>
  c.callTool({ name, arguments: args }, options)

describe("run tools over MCP", () => {
  let sim: SimulatorAsync
  let dir: string
  let daemon: TestDaemon
  let alice: Client
  let bob: Client

  const config = () => testConfig({ hermes: { url: sim.url, key: sim.profile("default").key } }, dir)

  beforeAll(async () => {
    sim = await startSimulatorAsync({})
    dir = tempDir()
    daemon = await startDaemon(config())
    alice = await connectMcp(daemon.url, await daemon.addClient("alice"))
    bob = await connectMcp(daemon.url, await daemon.addClient("bob"))
  })
  afterAll(async () => {
    await alice?.close()
    await bob?.close()
    await daemon?.close()
    await sim?.close()
  })

  it("agent_run_wait sends progress notifications and returns the finished run", async () => {
    const started = structured(await call(alice, "agent_run", { agent: "hermes", input: "[sim:deltas=40,slow=4s] explain" }))
    expect(started["run_id"]).toMatch(/^run_[0-9a-f]{32}$/)
    const progress: Array<number> = []
    const waited = structured(await call(alice, "agent_run_wait", { run_id: started["run_id"], timeout_s: 60 }, {
      onprogress: (p) => { progress.push(p.progress) }
    }))
    expect(waited["status"]).toBe("completed")
    expect(waited["timed_out"]).toBe(false)
    expect(waited["events_tail"].at(-1).type).toBe("run.completed")
    expect(progress.length).toBeGreaterThan(0)
    for (let i = 1; i < progress.length; i++) expect(progress[i]!).toBeGreaterThan(progress[i - 1]!)
  })

  it("a cancelled wait stops waiting, not the run", async () => {
    const started = structured(await call(alice, "agent_run", { agent: "hermes", input: "[sim:slow=1200ms] keep going" }))
    const abort = new AbortController()
    const waiting = call(alice, "agent_run_wait", { run_id: started["run_id"], timeout_s: 60 }, { signal: abort.signal })
    setTimeout(() => abort.abort(), 150)
    await expect(waiting).rejects.toThrow()
    const done = await until(
      async () => structured(await call(alice, "agent_run_status", { run_id: started["run_id"] })),
      (v) => ["completed", "failed", "cancelled", "interrupted"].includes(v["status"])
    )
    expect(done["status"]).toBe("completed")
  })

  it("another client's run is reported exactly like an unknown id", async () => {
    const started = structured(await call(alice, "agent_run", { agent: "hermes", input: "private work" }))
    const id = started["run_id"] as string
    const unknown = "run_" + "0".repeat(32)
    for (const tool of ["agent_run_status", "agent_run_events", "agent_run_stop", "agent_run_wait", "agent_run_steer", "agent_run_answer"]) {
      const extra: Json = tool === "agent_run_wait" ? { timeout_s: 0 } : tool === "agent_run_steer" ? { input: "x" } : tool === "agent_run_answer" ? { request_id: "r", answer: "a" } : {}
      const theirs = errorTextOf(await call(bob, tool, { run_id: id, ...extra }))
      const none = errorTextOf(await call(bob, tool, { run_id: unknown, ...extra }))
      expect(theirs).toContain("bridge.run_not_found")
      expect(theirs.split(id).join("<id>")).toBe(none.split(unknown).join("<id>"))
    }
    const listed = structured(await call(bob, "agent_runs_list", {}))
    expect(listed["runs"].map((r: Json) => r["run_id"])).not.toContain(id)
    expect(errorTextOf(await call(alice, "agent_run_status", { run_id: id, offset: -1 }))).toContain("bridge.invalid_offset")
  })

  it("a daemon restart re-attaches an unfinished run and loses nothing", async () => {
    const input = "[sim:deltas=50,slow=1500ms] long job"
    const started = structured(await call(alice, "agent_run", { agent: "hermes", input, idempotency_key: "restart-job" }))
    await until(async () => structured(await call(alice, "agent_run_status", { run_id: started["run_id"] })), (v) => v["last_seq"] > 2)
    await alice.close()
    await bob.close()
    await daemon.close()

    daemon = await startDaemon(config())
    alice = await connectMcp(daemon.url, await daemon.addClient("alice2"))
    bob = await connectMcp(daemon.url, await daemon.addClient("bob2"))
    // The run belongs to "alice": the admin sees it; the new clients do not.
    const admin = await connectMcp(daemon.url, daemon.adminKey)
    const done = structured(await call(admin, "agent_run_wait", { run_id: started["run_id"], timeout_s: 60 }))
    expect(done["status"]).toBe("completed")
    const simRun = await sim.findRun(findHermesId(sim, input))
    expect(done["output"]).toBe(simRun?.output)
    expect(errorTextOf(await call(alice, "agent_run_status", { run_id: started["run_id"] }))).toContain("bridge.run_not_found")
    await admin.close()
  })
})

/** The simulator's id of the run started with `input`. */
const findHermesId = (sim: SimulatorAsync, input: string): string => {
  const run = [...sim.handle.state.runs.values()].find((r) => r.input === input)
  return run?.id ?? ""
}
