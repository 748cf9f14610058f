/**
 * `pi` over MCP: agents_list lists it as not runnable, and agent_run (like every tool that takes an
 * agent) refuses it with bridge.unknown_agent whose message says it is listed but not runnable.
 */
import type { Client } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectMcp, errorTextOf, startDaemon, testConfig, type TestDaemon } from "../support/daemon.ts"

describe("pi, listed but not runnable", () => {
  let daemon: TestDaemon
  let mcp: Client
  beforeAll(async () => {
    daemon = await startDaemon(testConfig({ hermes: { url: "sim" } }))
    mcp = await connectMcp(daemon.url, await daemon.addClient("laptop"))
  }, 60_000)
  afterAll(async () => {
    await mcp?.close()
    await daemon?.close()
  })

  it("agents_list shows pi with runnable: false", async () => {
    const listed = (await mcp.callTool({ name: "agents_list", arguments: {} })) as unknown as { structuredContent: { agents: Array<Record<string, unknown>> } }
    expect(listed.structuredContent.agents).toContainEqual({ name: "pi", runnable: false })
  })

  it.each([
    ["agent_run", { agent: "pi", input: "hello" }],
    ["agent_capabilities", { agent: "pi" }],
    ["agent_memory_search", { agent: "pi", query: "x" }]
  ])("%s on pi is bridge.unknown_agent saying pi is not runnable", async (name, args) => {
    const text = errorTextOf(await mcp.callTool({ name, arguments: args }))
    expect(text).toContain("bridge.unknown_agent")
    expect(text).toContain(`agent "pi" is listed by agents_list but is not runnable`)
  })

  it("another unknown id is still called unknown", async () => {
    const text = errorTextOf(await mcp.callTool({ name: "agent_run", arguments: { agent: "claude", input: "hello" } }))
    expect(text).toContain(`bridge.unknown_agent: unknown agent "claude"`)
  })
})
