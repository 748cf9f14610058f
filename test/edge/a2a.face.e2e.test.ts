/**
 * The face shown (issue 27, item 4): a run records which face started it (migration 0009), and the
 * console's runs table and run page, `/metrics` (a `face` label on the runs counters and gauge) and
 * `agent-bridge runs` (a FACE column) show it. One run started over MCP, one over A2A, same client.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runDetail, runsTable } from "../../src/cli/runsFormat.ts"
import type { RunSummary } from "../../src/services/console/queries.ts"
import { makeClient } from "../inbox/fetchClient.ts"
import { connectMcp, startDaemon, type TestDaemon, tempDir, testConfig } from "../support/daemon.ts"

let daemon: TestDaemon
let key = ""
let mcpRun = ""
let a2aRun = ""

const a2a = async (method: string, params: Record<string, unknown>) => {
  const res = await fetch(`${daemon.url}/a2a`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })
  })
  return (await res.json()) as Record<string, any>
}

const metricValue = (text: string, name: string, labels: Record<string, string>) =>
  text.split("\n")
    .filter((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
    .reduce((sum, l) => sum + Number(l.split(" ").at(-1)), 0)

beforeAll(async () => {
  daemon = await startDaemon(testConfig({ hermes: { url: "sim" } }, tempDir()))
  key = await daemon.addClient("two-faces", ["agents", "a2a"])
  const mcp = await connectMcp(daemon.url, key)
  const started = (await mcp.callTool({ name: "agent_run", arguments: { agent: "hermes", input: "[sim:slow=60s] over mcp" } })) as unknown as { structuredContent: { run_id: string } }
  mcpRun = started.structuredContent.run_id
  await mcp.close()
  const sent = await a2a("SendMessage", { message: { messageId: "face-1", role: "ROLE_USER", parts: [{ text: "[sim:slow=60s] over a2a" }] }, configuration: { returnImmediately: true } })
  a2aRun = sent["result"].task.id
}, 60_000)
afterAll(async () => {
  await a2a("CancelTask", { id: a2aRun }).catch(() => undefined)
  await daemon?.close()
})

describe("the face that started a run", () => {
  it("the console's runs table and run page show it", async () => {
    const web = makeClient(daemon.url)
    expect((await web.signIn(daemon.adminKey)).status).toBe(303)
    const table = (await web.send("GET", "/inbox/runs")).body
    const rowOf = (id: string) => table.slice(table.indexOf(`data-run="${id}"`), table.indexOf("</tr>", table.indexOf(`data-run="${id}"`)))
    expect(table).toContain('<th scope="col">Face</th>')
    expect(rowOf(mcpRun)).toContain('<td class="face">MCP</td>')
    expect(rowOf(a2aRun)).toContain('<td class="face">A2A</td>')
    expect((await web.send("GET", `/inbox/runs/${a2aRun}`)).body).toMatch(/<dd id="run-face">an A2A client<\/dd>/)
    expect((await web.send("GET", `/inbox/runs/${mcpRun}`)).body).toMatch(/<dd id="run-face">an MCP client<\/dd>/)
  })

  it("/metrics counts runs by face: started and live", async () => {
    const text = await (await fetch(`${daemon.url}/metrics`, { headers: { authorization: `Bearer ${daemon.adminKey}` } })).text()
    expect(metricValue(text, "agent_bridge_runs_started_total", { client: "two-faces", face: "a2a" })).toBe(1)
    expect(metricValue(text, "agent_bridge_runs_started_total", { client: "two-faces", face: "mcp" })).toBe(1)
    expect(metricValue(text, "agent_bridge_runs_live", { client: "two-faces", face: "a2a" })).toBe(1)
    expect(metricValue(text, "agent_bridge_runs_live", { client: "two-faces", face: "mcp" })).toBe(1)
  })

  it("an idempotent retry (same messageId) is no second start", async () => {
    const again = await a2a("SendMessage", { message: { messageId: "face-1", role: "ROLE_USER", parts: [{ text: "[sim:slow=60s] over a2a" }] }, configuration: { returnImmediately: true } })
    expect(again["result"].task.id).toBe(a2aRun)
    const text = await (await fetch(`${daemon.url}/metrics`, { headers: { authorization: `Bearer ${daemon.adminKey}` } })).text()
    expect(metricValue(text, "agent_bridge_runs_started_total", { client: "two-faces", face: "a2a" })).toBe(1)
  })
})

describe("agent-bridge runs' formatting", () => {
  const summary = (face: "mcp" | "a2a"): RunSummary => ({
    runId: `run_${face}`, client: "c", agent: "hermes", profile: "default", status: "running", createdAt: 0, updatedAt: 0, endedAt: null,
    lastEventType: null, lastEventAt: null, face, tokens: null, usage: null, operatorStop: null
  })
  it("has a FACE column, and `runs show` a face line", () => {
    const text = runsTable([summary("mcp"), summary("a2a")], 1000)
    expect(text.split("\n")[0]).toMatch(/^RUN\s+CLIENT\s+AGENT\s+FACE\s+STATUS/)
    expect(text).toMatch(/run_a2a\s+c\s+hermes\s+a2a\s+running/)
    expect(text).toMatch(/run_mcp\s+c\s+hermes\s+mcp\s+running/)
    const view = {
      run_id: "run_a2a", agent: "hermes", profile: "default", client: "c", status: "running", created_at: "", updated_at: "", input_preview: "",
      error: null, usage: null, pending: null, last_seq: 1, output: null, output_offset: 0, output_total: 0, next_offset: null
    } as unknown as Parameters<typeof runDetail>[0]
    expect(runDetail(view, summary("a2a"))).toContain("  face:     a2a")
  })
})
