/**
 * Usage per client stays with its client: a run's `usage` (Hermes's token counts, which the console
 * totals per client) reaches its own client and the admin, and no MCP tool answers another client
 * with it. Every tool the other client can list is called, with the first client's run id wherever
 * a tool takes one; no answer carries that run, its usage, or any token count.
 */
import type { Client } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectMcp, startDaemon, testConfig, type TestDaemon } from "../support/daemon.ts"
import { eventually } from "./support.ts"

type Structured = { structuredContent?: Record<string, unknown>; isError?: boolean }

describe("usage per client never leaks through MCP", () => {
  let daemon: TestDaemon
  let owner: Client
  let other: Client
  let admin: Client
  let runId = ""

  beforeAll(async () => {
    daemon = await startDaemon(testConfig({ hermes: { url: "sim" } }))
    owner = await connectMcp(daemon.url, await daemon.addClient("owner", ["agents", "memory"]))
    other = await connectMcp(daemon.url, await daemon.addClient("other", ["agents", "memory"]))
    admin = await connectMcp(daemon.url, daemon.adminKey)
    const started = (await owner.callTool({ name: "agent_run", arguments: { agent: "hermes", input: "count the tokens of this task" } })) as Structured
    runId = started.structuredContent!["run_id"] as string
    await eventually(async () => {
      const s = (await owner.callTool({ name: "agent_run_status", arguments: { run_id: runId } })) as Structured
      return s.structuredContent?.["status"] === "completed" ? true : undefined
    })
  }, 60_000)
  afterAll(async () => {
    for (const c of [owner, other, admin]) await c?.close()
    await daemon?.close()
  })

  it("the owner and the admin see the run's usage", async () => {
    for (const c of [owner, admin]) {
      const s = (await c.callTool({ name: "agent_run_status", arguments: { run_id: runId } })) as Structured
      expect((s.structuredContent?.["usage"] as Record<string, number>)["total_tokens"]).toBeGreaterThan(0)
    }
  })

  it("no tool answers another client with it", async () => {
    const { tools } = await other.listTools()
    expect(tools.length).toBeGreaterThanOrEqual(16)
    const args = (schema: { properties?: Record<string, unknown> }): Record<string, unknown> => {
      const p = schema.properties ?? {}
      const out: Record<string, unknown> = {}
      if ("run_id" in p) out["run_id"] = runId
      if ("agent" in p) out["agent"] = "hermes"
      if ("input" in p) out["input"] = `tokens of ${runId}`
      if ("query" in p) out["query"] = runId
      if ("request_id" in p) out["request_id"] = "req_x"
      if ("answer" in p) out["answer"] = "yes"
      if ("timeout_s" in p) out["timeout_s"] = 0
      if ("name" in p) out["name"] = "some-skill"
      return out
    }
    for (const tool of tools) {
      if (tool.name === "agent_run") continue // would start a run of its own (its own usage), not read the owner's
      const answer = JSON.stringify(await other.callTool({ name: tool.name, arguments: args(tool.inputSchema as { properties?: Record<string, unknown> }) }))
      // The caller's own argument echoed back (the not-found message quotes the id it was given) says nothing.
      const withoutEcho = answer.split(`tokens of ${runId}`).join("").split(`no run \\"${runId}\\"`).join("")
      expect(withoutEcho, tool.name).not.toContain(runId)
      expect(answer, tool.name).not.toMatch(/"(total|input|output)_tokens"/)
    }
    const listed = (await other.callTool({ name: "agent_runs_list", arguments: {} })) as Structured
    expect(listed.structuredContent?.["runs"]).toEqual([])
  }, 60_000)
})
