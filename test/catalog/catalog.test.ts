/**
 * The catalog without HTTP: Hermes's filter semantics, both servers' views per client, the search's
 * stems and ranking, and tool_call's path (logs under the real tool's name, progress passed through).
 */
import type { CallToolResult } from "../../src/edge/mcp/wireTypes.ts"
import { Effect, HashMap, List, Logger, Schema } from "effect"
import { describe, expect, it } from "vitest"
import type { ClientSettings } from "../../src/config/schema.ts"
import { makeCatalog } from "../../src/edge/mcp/catalog/clientCatalog.ts"
import { toolPredicate } from "../../src/edge/mcp/catalog/filter.ts"
import { stem, termsOf } from "../../src/edge/mcp/catalog/search.ts"
import { memoryTools } from "../../src/edge/mcp/memory-tools/index.ts"
import { runTool } from "../../src/edge/mcp/runTool.ts"
import { defineTool, type ToolDef } from "../../src/edge/mcp/ToolDef.ts"
import { agentTools } from "../../src/edge/mcp/agent-tools/index.ts"
import { Caller, type CallerShape } from "../../src/request/Caller.ts"
import { Progress, type ProgressShape } from "../../src/request/Progress.ts"

const settings = (catalog: "full" | "compact", include: ReadonlyArray<string> = [], exclude: ReadonlyArray<string> = []): ClientSettings => ({
  catalog,
  tools: { include, exclude }
})
const noProgress: ProgressShape = { enabled: false, report: () => Effect.void }
/** Runs a tool in-process; the tools here need no service beyond Caller and Progress, which runTool provides. */
const call = (tool: ToolDef, args: unknown, caller: CallerShape, progress: ProgressShape = noProgress) =>
  runTool(tool, args, caller, progress) as Effect.Effect<CallToolResult>
const names = (tools: ReadonlyArray<{ name: string }>) => tools.map((t) => t.name)

describe("tool filter (Hermes semantics)", () => {
  it("has every tool with neither list, removes excluded ones, and keeps only included ones, include winning", () => {
    expect(["a", "b"].filter(toolPredicate({ include: [], exclude: [] }))).toEqual(["a", "b"])
    expect(["a", "b", "c"].filter(toolPredicate({ include: [], exclude: ["b"] }))).toEqual(["a", "c"])
    expect(["a", "b", "c"].filter(toolPredicate({ include: ["a", "c"], exclude: [] }))).toEqual(["a", "c"])
    expect(["a", "b", "c"].filter(toolPredicate({ include: ["a"], exclude: ["a", "b"] }))).toEqual(["a"])
  })
})

describe("per-client views", () => {
  const clients = {
    lean: settings("compact", [], ["agent_run", "memory_delete"]),
    reader: settings("full", ["agents_list", "memory_search", "memory_list"])
  }
  const catalog = makeCatalog(clients, memoryTools)

  it("filters the memory server with the same settings, and never makes it compact", () => {
    expect(names(catalog.list("memory", Caller.client("lean")))).toEqual(["memory_add", "memory_search", "memory_list"])
    expect(names(catalog.list("memory", Caller.client("reader")))).toEqual(["memory_search", "memory_list"])
    expect(catalog.find("memory", Caller.client("lean"), "memory_delete")).toBeUndefined()
    expect(catalog.find("memory", Caller.client("reader"), "memory_add")).toBeUndefined()
    expect(catalog.list("memory", Caller.client("lean")).every((t) => t.outputSchema !== undefined)).toBe(true)
  })

  it("lists only the core tools the filter leaves, then the meta tools", () => {
    expect(names(catalog.list("agents", Caller.client("lean")))).toEqual([
      "agents_list", "agent_run_wait", "agent_run_status", "tool_search", "tool_describe", "tool_call"
    ])
    expect(catalog.find("agents", Caller.client("lean"), "agent_run")).toBeUndefined()
    expect(catalog.find("agents", Caller.client("lean"), "agent_skill_put")?.name).toBe("agent_skill_put")
  })

  it("gives the admin everything whatever the settings say, and unknown clients the defaults", () => {
    const adminNamed = makeCatalog({ admin: settings("compact", ["agents_list"]) }, memoryTools)
    expect(names(adminNamed.list("agents", Caller.admin))).toEqual(names(agentTools))
    expect(names(adminNamed.list("memory", Caller.admin))).toEqual(names(memoryTools))
    expect(names(catalog.list("agents", Caller.client("stranger")))).toEqual(names(agentTools))
    expect(catalog.find("agents", Caller.client("stranger"), "tool_call")).toBeUndefined()
    // Client names are ordinary words, some of which every object inherits.
    expect(names(catalog.list("agents", Caller.client("constructor")))).toEqual(names(agentTools))
  })
})

describe("search stems and ranking", () => {
  it("brings inflections of a word to one stem", () => {
    for (const group of [
      ["delete", "deletes", "deleted", "deleting", "deletion"],
      ["run", "runs", "running"],
      ["memory", "memories"],
      ["wait", "waits", "waiting", "waited"],
      ["stop", "stops", "stopped", "stopping"],
      ["question", "questions"]
    ]) {
      expect(new Set(group.map(stem)), group.join(", ")).toHaveProperty("size", 1)
    }
    expect(stem("status")).toBe("status")
  })

  it("splits names into words and drops words that name no tool", () => {
    expect(termsOf("How do I stop the agent_run?")).toEqual(["stop", "agent", "run"])
  })

  const catalog = makeCatalog({ c: settings("compact") }, [])
  const search = async (queries: ReadonlyArray<string>, limit = 3) => {
    const res = await Effect.runPromise(call(catalog.find("agents", Caller.client("c"), "tool_search")!, { queries, limit }, Caller.client("c")))
    return (res.structuredContent as { results: ReadonlyArray<{ matches: ReadonlyArray<string> }> }).results.map((r) => r.matches[0])
  }

  it("ranks the tool a plain request means first", async () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["answer the agent's clarifying question", "agent_run_answer"],
      ["follow a run's events", "agent_run_events"],
      ["save a note", "agent_memory_add"],
      ["search memory", "agent_memory_search"],
      ["list my runs", "agent_runs_list"],
      ["steer a running run", "agent_run_steer"],
      ["propose a new skill", "agent_skill_put"],
      ["which toolsets does the profile have", "agent_capabilities"],
      ["agent_skill_get", "agent_skill_get"]
    ]
    expect(await search(cases.map(([q]) => q))).toEqual(cases.map(([, tool]) => tool))
  })
})

describe("tool_call's path", () => {
  const boom = defineTool({
    name: "boom",
    title: "Boom",
    description: "Always fails with a defect.",
    input: Schema.Struct({}),
    output: Schema.Struct({}),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    handler: () => Effect.die(new Error("kaboom"))
  })
  const ticking = defineTool({
    name: "ticking",
    title: "Ticking",
    description: "Reports progress twice.",
    input: Schema.Struct({}),
    output: Schema.Struct({ ticks: Schema.Number }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    progress: true,
    handler: () => Effect.flatMap(Progress, (p) => Effect.as(Effect.zipRight(p.report(1, "one"), p.report(2, "two")), { ticks: 2 }))
  })
  const caller: CallerShape = Caller.client("c")
  const catalog = makeCatalog({ c: settings("compact") }, [], [boom, ticking])
  const toolCall = catalog.find("agents", caller, "tool_call")!

  it("logs a failure under the real tool's name and returns that tool's bridge.internal result", async () => {
    const logged: Array<{ message: unknown; annotations: Record<string, unknown> }> = []
    const capture = Logger.make(({ message, annotations }) => {
      logged.push({ message: List.isList(message) ? List.toArray(message) : message, annotations: Object.fromEntries(HashMap.toEntries(annotations)) })
    })
    const res = await Effect.runPromise(
      call(toolCall, { calls: [{ name: "boom" }] }, caller).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, capture)))
    )
    const inner = (res.structuredContent as { results: ReadonlyArray<{ result: { content: ReadonlyArray<{ text: string }> } }> }).results[0]!.result
    expect(inner.content[0]!.text).toMatch(/^Error executing tool boom: bridge\.internal: /)
    const failure = logged.find((l) => JSON.stringify(l.message).includes("tool call failed"))
    expect(failure?.annotations).toMatchObject({ tool: "boom", client: "c" })
    expect(String(failure?.annotations["incident"])).toMatch(/^inc_/)
    expect(inner.content[0]!.text).toContain(String(failure?.annotations["incident"]))
  })

  it("passes the request's progress to the tool it calls", async () => {
    const reports: Array<[number, string | undefined]> = []
    const progress: ProgressShape = { enabled: true, report: (n, m) => Effect.sync(() => void reports.push([n, m])) }
    const res = await Effect.runPromise(call(toolCall, { calls: [{ name: "ticking" }, { name: "ticking" }] }, caller, progress))
    expect(res.isError).toBeUndefined()
    expect(reports).toEqual([[1, "one"], [2, "two"], [1, "one"], [2, "two"]])
  })
})
