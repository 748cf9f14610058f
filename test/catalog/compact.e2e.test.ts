/**
 * The per-client catalog over real HTTP with the SDK client: what each client lists, the meta tools'
 * answers in Hermes's shapes, and the filter making a tool unknown however it is reached.
 */
import { type CallToolResult, type Client, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { toolListing } from "../../src/edge/mcp/catalog/listing.ts"
import { agentTools } from "../../src/edge/mcp/agent-tools/index.ts"
import { connectMcp, errorTextOf } from "../support/daemon.ts"
import { type CatalogFixture, type ClientName, startCatalogDaemon } from "./support/fixture.ts"

const ALL = agentTools.map((t) => t.name)
const textOf = (res: unknown) => errorTextOf(res as CallToolResult)
const listingOf = (name: string) => toolListing(agentTools.find((t) => t.name === name)!)

interface SearchAnswer {
  readonly results: ReadonlyArray<{ readonly query: string; readonly matches: ReadonlyArray<string> }>
  readonly tools: Readonly<Record<string, { readonly description: string; readonly required: ReadonlyArray<string> }>>
  readonly available?: ReadonlyArray<string>
}
interface DescribeAnswer {
  readonly tools: Readonly<Record<string, { readonly parameters: unknown }>>
  readonly not_found: ReadonlyArray<string>
}

describe("per-client catalog over HTTP", () => {
  let fx: CatalogFixture
  const clients = new Map<string, Client>()
  const client = async (name: ClientName | "admin") => {
    const open = clients.get(name)
    if (open !== undefined) return open
    const c = await connectMcp(fx.daemon.url, name === "admin" ? fx.daemon.adminKey : fx.keys[name])
    clients.set(name, c)
    return c
  }
  const structured = async <A>(name: ClientName, tool: string, args: Record<string, unknown>): Promise<A> => {
    const res = await (await client(name)).callTool({ name: tool, arguments: args })
    expect(res.isError, textOf(res)).toBeFalsy()
    return res.structuredContent as A
  }
  /** A direct call of a tool the client does not have is a protocol error, as for a tool that does not exist. */
  const unknownDirect = async (name: ClientName, tool: string) => {
    const error = await (await client(name)).callTool({ name: tool, arguments: {} }).then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(ProtocolError)
    expect((error as ProtocolError).code).toBe(ProtocolErrorCode.InvalidParams)
    expect((error as ProtocolError).message).toContain(`Unknown tool: ${tool}`)
  }

  beforeAll(async () => {
    fx = await startCatalogDaemon()
  })
  afterAll(async () => {
    for (const c of clients.values()) await c.close()
    await fx.daemon.close()
  })

  it("gives the admin and a client without settings the full catalog, without meta tools", async () => {
    for (const name of ["admin", "plain"] as const) {
      const { tools } = await (await client(name)).listTools()
      expect(tools.map((t) => t.name)).toEqual(ALL)
      expect(tools.every((t) => t.outputSchema !== undefined)).toBe(true)
    }
    await unknownDirect("plain", "tool_search")
    await unknownDirect("plain", "tool_call")
  })

  it("lists the core tools and the meta tools for a compact client, and still answers direct calls of the rest", async () => {
    const { tools } = await (await client("compact")).listTools()
    expect(tools.map((t) => t.name)).toEqual([
      "agents_list", "agent_run", "agent_run_wait", "agent_run_status", "tool_search", "tool_describe", "tool_call"
    ])
    expect(tools.some((t) => t.outputSchema !== undefined)).toBe(false)
    expect(tools.find((t) => t.name === "agent_run")!.inputSchema).toEqual(listingOf("agent_run").inputSchema)
    const direct = await (await client("compact")).callTool({ name: "agent_capabilities", arguments: { agent: "hermes" } })
    expect(direct.isError).toBeFalsy()
  })

  it("tool_search finds tools by words and stems and returns Hermes's shape", async () => {
    const answer = await structured<SearchAnswer>("compact", "tool_search", {
      queries: ["stop a running run", "deleting skills", "capab", "agent_run_events"],
      limit: 2
    })
    expect(answer.results.map((r) => r.query)).toEqual(["stop a running run", "deleting skills", "capab", "agent_run_events"])
    expect(answer.results.map((r) => r.matches[0])).toEqual(["agent_run_stop", "agent_skill_delete", "agent_capabilities", "agent_run_events"])
    expect(answer.results.every((r) => r.matches.length <= 2)).toBe(true)
    expect(answer.available).toBeUndefined()
    const matched = [...new Set(answer.results.flatMap((r) => r.matches))]
    expect(Object.keys(answer.tools).sort()).toEqual(matched.sort())
    expect(answer.tools["agent_run_stop"]).toEqual({
      description: agentTools.find((t) => t.name === "agent_run_stop")!.description,
      required: ["run_id"]
    })
  })

  it("tool_search answers a query that matches nothing with the list of names", async () => {
    const answer = await structured<SearchAnswer>("compact", "tool_search", { queries: ["xylophone quartz", "memory"] })
    expect(answer.results[0]).toEqual({ query: "xylophone quartz", matches: [] })
    expect(answer.results[1]!.matches.slice(0, 2).sort()).toEqual(["agent_memory_add", "agent_memory_search"])
    expect(answer.available).toEqual(ALL)
  })

  it("tool_describe returns each tool's input schema and the names it does not know", async () => {
    const answer = await structured<DescribeAnswer>("compact", "tool_describe", { names: ["agent_run_events", "tool_call", "nope"] })
    expect(answer).toEqual({
      tools: { agent_run_events: { parameters: listingOf("agent_run_events").inputSchema } },
      not_found: ["tool_call", "nope"]
    })
  })

  it("tool_call names the real tool in its results and errors", async () => {
    const answer = await structured<{ results: ReadonlyArray<{ name: string; result: { isError?: boolean; content: ReadonlyArray<{ text: string }> } }> }>(
      "compact", "tool_call", { calls: [{ name: "agent_run_status", arguments: { run_id: "run_x", offset: -1 } }] }
    )
    expect(answer.results[0]!.name).toBe("agent_run_status")
    expect(answer.results[0]!.result.isError).toBe(true)
    expect(answer.results[0]!.result.content[0]!.text).toMatch(/^Error executing tool agent_run_status: bridge\.invalid_offset: /)
  })

  describe("a filtered tool is unknown however it is reached", () => {
    const filtered = ["agent_run_stop", "agent_skill_delete"]

    it("is not listed, not found by search, not described, and not callable directly or through tool_call", async () => {
      const reachable = ALL.filter((n) => !filtered.includes(n))
      const search = await structured<SearchAnswer>("trimmed", "tool_search", {
        queries: ["stop a run", "delete a skill", "agent_run_stop", "zzz qqq"],
        limit: 16
      })
      const seen = [...search.results.flatMap((r) => r.matches), ...Object.keys(search.tools), ...(search.available ?? [])]
      for (const name of filtered) expect(seen).not.toContain(name)
      expect(search.available).toEqual(reachable)

      const described = await structured<DescribeAnswer>("trimmed", "tool_describe", { names: filtered })
      expect(described).toEqual({ tools: {}, not_found: filtered })

      for (const name of filtered) {
        await unknownDirect("trimmed", name)
        const viaCall = await (await client("trimmed")).callTool({ name: "tool_call", arguments: { calls: [{ name, arguments: {} }] } })
        const nonexistent = await (await client("trimmed")).callTool({ name: "tool_call", arguments: { calls: [{ name: "no_such_tool", arguments: {} }] } })
        // Word for word the refusal a tool that does not exist gets.
        expect(textOf(viaCall)).toBe(textOf(nonexistent).replace("no_such_tool", name))
        expect(textOf(viaCall)).toMatch(/^Error executing tool tool_call: bridge\.invalid_input: unknown tool: /)
      }
    })

    it("applies include before exclude, as Hermes does", async () => {
      const { tools } = await (await client("narrow")).listTools()
      expect(tools.map((t) => t.name)).toEqual(["agents_list", "agent_run_status"])
      await unknownDirect("narrow", "agent_run")
      await unknownDirect("narrow", "tool_call")
      const status = await (await client("narrow")).callTool({ name: "agent_run_status", arguments: { run_id: "run_x" } })
      expect(textOf(status)).toMatch(/^Error executing tool agent_run_status: bridge\./)
    })
  })
})
