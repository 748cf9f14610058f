/**
 * A queued run through the whole daemon (issue 38 item 3): the run tools, A2A GetTask/CancelTask
 * (TASK_STATE_SUBMITTED while queued), the console (queue depth per profile, each run's place) and
 * /metrics (queue depth, time queued), MCP Tasks (`working`, its status message saying it waits for
 * capacity and its place; `tasks/cancel` ends it `cancelled`). The bridge's capacity for the
 * simulator (in this process, so that the test sees what reached Hermes) is 1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { makeClient } from "../inbox/fetchClient.ts"
import { connectMcp, startDaemon, type TestDaemon, tempDir, testConfig } from "../support/daemon.ts"
import { modernRequest, rpcAnswer } from "../support/mcpWire.ts"
import { until } from "../support/poll.ts"

let sim: SimulatorAsync
let daemon: TestDaemon
let key = ""
let mcp: Awaited<ReturnType<typeof connectMcp>>
let hold = ""
let queued = ""

type Json = Record<string, any>
const a2a = async (method: string, params: Json) => {
  const res = await fetch(`${daemon.url}/a2a`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })
  })
  return (await res.json()) as Json
}
const tool = async (name: string, args: Json) => ((await mcp.callTool({ name, arguments: args })) as { structuredContent: Json }).structuredContent
const metrics = async () => (await fetch(`${daemon.url}/metrics`, { headers: { authorization: `Bearer ${daemon.adminKey}` } })).text()
const metricValue = (text: string, name: string, labels: Record<string, string>) =>
  text.split("\n")
    .filter((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
    .reduce((sum, l) => sum + Number(l.split(" ").at(-1)), 0)

beforeAll(async () => {
  sim = await startSimulatorAsync({})
  daemon = await startDaemon(testConfig({ hermes: { url: sim.url, key: sim.profile("default").key, max_concurrent_runs: 1 } }, tempDir()))
  key = await daemon.addClient("queuer", ["agents", "a2a"])
  mcp = await connectMcp(daemon.url, key)
  hold = (await tool("agent_run", { agent: "hermes", input: "[sim:slow=60s] holds the only slot" }))["run_id"]
}, 60_000)
afterAll(async () => {
  await mcp?.close()
  await daemon?.close()
  await sim?.close()
})

describe("a queued run through the daemon", () => {
  it("agent_run answers queued with its place; status and events say so", async () => {
    const view = await tool("agent_run", { agent: "hermes", input: "waits for the slot" })
    queued = view["run_id"]
    expect([view["status"], view["queue_position"]]).toEqual(["queued", 1])
    expect((await tool("agent_run_status", { run_id: queued }))["queue_position"]).toBe(1)
    expect((await tool("agent_run_events", { run_id: queued }))["events"].map((e: Json) => e["type"])).toEqual(["run.queued"])
  })

  it("A2A: a queued task is SUBMITTED in SendMessage and GetTask, and CancelTask cancels it", async () => {
    const sent = await a2a("SendMessage", { message: { messageId: "queued-1", role: "ROLE_USER", parts: [{ text: "an A2A task" }] }, configuration: { returnImmediately: true } })
    const task = sent["result"].task
    expect(task.status.state).toBe("TASK_STATE_SUBMITTED")
    expect((await a2a("GetTask", { id: task.id }))["result"].status.state).toBe("TASK_STATE_SUBMITTED")
    expect((await a2a("CancelTask", { id: task.id }))["result"].status.state).toBe("TASK_STATE_CANCELED")
  })

  it("MCP Tasks: a queued run is a working task that says it waits for capacity and its place; tasks/cancel ends it before Hermes sees it", async () => {
    const tasks = { "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } }
    let id = 0
    const rpc = async (method: string, params: Json) => {
      const request = modernRequest(key, ++id, method, { ...params, _meta: tasks })
      // The tasks/* methods name their task in the Mcp-Name header.
      const headers = typeof params["taskId"] === "string" ? { ...request.headers, "mcp-name": params["taskId"] } : request.headers
      return rpcAnswer(await fetch(`${daemon.url}/mcp/agents/mcp`, { ...request, headers }))
    }
    const input = "a task that never reaches Hermes"
    const created = (await rpc("tools/call", { name: "agent_run", arguments: { agent: "hermes", input } }))["result"]
    expect([created.resultType, created.status]).toEqual(["task", "working"])
    // Second in the queue: the run of the first case is first.
    expect(created.statusMessage).toMatch(/^The run is queued: it waits for capacity at .+ \(place 2 in the queue\)\.$/)
    const gotAnswer = await rpc("tasks/get", { taskId: created.taskId })
    expect(gotAnswer["error"]).toBeUndefined()
    const got = gotAnswer["result"]
    expect([got.taskId, got.status]).toEqual([created.taskId, "working"])
    expect(got.statusMessage).toBe(created.statusMessage)
    expect((await rpc("tasks/cancel", { taskId: created.taskId }))["result"].resultType).toBe("complete")
    const ended = (await until(() => rpc("tasks/get", { taskId: created.taskId }), (m) => m["result"]?.status !== "working"))["result"]
    expect(ended.status).toBe("cancelled")
    expect((await tool("agent_run_events", { run_id: created.taskId }))["events"].map((e: Json) => e["type"])).toEqual(["run.queued", "run.stopping", "run.cancelled"])
    // Hermes never saw it; the run ahead keeps its place.
    expect([...sim.handle.state.runs.values()].map((r) => r.input).filter((i) => i.includes(input))).toEqual([])
    expect((await tool("agent_run_status", { run_id: queued }))["queue_position"]).toBe(1)
  })

  it("the console shows the queue per profile and each queued run's place", async () => {
    const web = makeClient(daemon.url)
    expect((await web.signIn(daemon.adminKey)).status).toBe(303)
    const table = (await web.send("GET", "/inbox/runs")).body
    expect(table).toMatch(/<li data-profile="default">profile <code>default<\/code>: 1 run queued<\/li>/)
    const row = table.slice(table.indexOf(`data-run="${queued}"`), table.indexOf("</tr>", table.indexOf(`data-run="${queued}"`)))
    expect(row).toContain("(place 1)")
    expect((await web.send("GET", `/inbox/runs/${queued}`)).body).toContain('<dd id="run-queue">place 1 in the queue')
  })

  it("/metrics: the queue's depth, then the time queued once the slot frees", async () => {
    // The cases before cancelled their queued runs; the one of the first case still waits (a loaded
    // run once read 2 here: the depth is read from the ledger at each scrape, so it is read again).
    const before = await until(async () => await metrics(), (t) => metricValue(t, "agent_bridge_runs_queued", { profile: "default" }) === 1, { what: "one run queued" })
    const admittedBefore = metricValue(before, "agent_bridge_run_queued_seconds_count", { profile: "default" }) || 0
    await tool("agent_run_stop", { run_id: hold })
    const done = await tool("agent_run_wait", { run_id: queued, timeout_s: 60 })
    expect(done["status"]).toBe("completed")
    const text = await metrics()
    expect(metricValue(text, "agent_bridge_runs_queued", { profile: "default" })).toBe(0)
    // The one queued run admitted when the slot freed is one more observation of its time queued.
    expect(metricValue(text, "agent_bridge_run_queued_seconds_count", { profile: "default" }) - admittedBefore).toBe(1)
  })
})
