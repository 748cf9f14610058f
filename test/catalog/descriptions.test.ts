/**
 * Every tool a client can list carries a description an LLM can act on (one or two sentences, saying
 * what it returns; a long-running tool says how to follow up) and a full set of annotations.
 */
import { describe, expect, it } from "vitest"
import { makeCatalog } from "../../src/edge/mcp/catalog/clientCatalog.ts"
import { memoryTools } from "../../src/edge/mcp/memory-tools/index.ts"
import { agentTools } from "../../src/edge/mcp/agent-tools/index.ts"
import { Caller } from "../../src/request/Caller.ts"

const compact = makeCatalog({ c: { catalog: "compact", tools: { include: [], exclude: [] } } }, [])
const metaTools = ["tool_search", "tool_describe", "tool_call"].map((n) => compact.find("agents", Caller.client("c"), n)!)
const everyTool = [...agentTools, ...metaTools, ...memoryTools]

/** A sentence ends at . ! or ? followed by a space or the end (no description uses abbreviations). */
const sentences = (text: string) => text.split(/(?<=[.!?])\s+/).filter((s) => s.trim() !== "")

describe("tool descriptions and annotations", () => {
  for (const tool of [...agentTools, ...metaTools]) {
    it(`${tool.name}: one or two sentences that say what it returns`, () => {
      const parts = sentences(tool.description)
      expect(parts.length, tool.description).toBeGreaterThanOrEqual(1)
      expect(parts.length, tool.description).toBeLessThanOrEqual(2)
      expect(tool.description.length).toBeLessThanOrEqual(400)
      // Either it says "returns", or it opens with the verb whose object is the result.
      expect(tool.description).toMatch(/\breturns?\b|^(List|Get|Read|Describe)\b/i)
    })
  }

  it("long-running tools say how to follow up", () => {
    for (const tool of agentTools.filter((t) => t.progress === true)) {
      expect(tool.description, tool.name).toMatch(/agent_run_wait|call again/)
      expect(tool.description, tool.name).toMatch(/timeout/)
    }
  })

  it("every tool has the three hints, and a read-only tool is never destructive", () => {
    for (const tool of everyTool) {
      const a = tool.annotations
      expect([typeof a.readOnlyHint, typeof a.destructiveHint, typeof a.idempotentHint], tool.name).toEqual(["boolean", "boolean", "boolean"])
      if (a.readOnlyHint) expect(a.destructiveHint, tool.name).toBe(false)
    }
    const hints = Object.fromEntries(metaTools.map((t) => [t.name, t.annotations.readOnlyHint]))
    // tool_call can reach tools that change things, so it is marked as one of them.
    expect(hints).toEqual({ tool_search: true, tool_describe: true, tool_call: false })
  })
})
