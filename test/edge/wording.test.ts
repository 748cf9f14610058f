/**
 * What clients hand to the model: refusals of bad arguments are one plain sentence per field
 * (`wait_s must be at most 600 (got 601)`), never the schema library's wording or a doubled
 * "expected undefined"; tool schemas carry no library titles, declare every bound the server
 * enforces as plain JSON Schema, and every tool has a title.
 */
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { toolListing } from "../../src/edge/mcp/catalog/listing.ts"
import { decodeArgs } from "../../src/edge/mcp/decodeArgs.ts"
import { makeMetaTools } from "../../src/edge/mcp/meta-tools/index.ts"
import { memoryTools } from "../../src/edge/mcp/memory-tools/index.ts"
import type { ToolDef } from "../../src/edge/mcp/ToolDef.ts"
import { agentTools } from "../../src/edge/mcp/agent-tools/index.ts"
import { MEMORY_LIMITS, WAIT_MAX_SECONDS } from "../../src/domain/limits.ts"

const all: ReadonlyArray<ToolDef> = [...agentTools, ...memoryTools, ...makeMetaTools(agentTools, () => agentTools)]
const tool = (name: string) => all.find((t) => t.name === name)!
const refusal = async (name: string, args: unknown) => {
  const r = await Effect.runPromise(Effect.either(decodeArgs(tool(name), args)))
  return Either.isLeft(r) ? r.left.message : "accepted"
}

describe("argument refusals", () => {
  it.each([
    ["agent_run", { agent: "hermes", input: "x", wait_s: WAIT_MAX_SECONDS + 1 }, `invalid arguments: wait_s must be at most ${WAIT_MAX_SECONDS} (got ${WAIT_MAX_SECONDS + 1})`],
    ["agent_run", { agent: "hermes", input: "x", wait_s: -1 }, "invalid arguments: wait_s must be at least 0 (got -1)"],
    ["agent_run", { agent: "hermes", input: "x", wait_s: "soon" }, 'invalid arguments: wait_s must be a number (got "soon")'],
    ["agent_run", { input: "x" }, "invalid arguments: agent is missing"],
    ["agent_run", { agent: "hermes", input: "x", bogus: 1 }, "invalid arguments: bogus is not an argument of this tool"],
    ["agent_run_events", { run_id: "r", limit: 0 }, "invalid arguments: limit must be at least 1 (got 0)"],
    ["memory_search", { query: "x", limit: MEMORY_LIMITS.limitMax + 1 }, `invalid arguments: limit must be at most ${MEMORY_LIMITS.limitMax} (got ${MEMORY_LIMITS.limitMax + 1})`],
    ["memory_search", { query: "x", limit: 2.5 }, "invalid arguments: limit must be a whole number (got 2.5)"],
    ["memory_list", { namespace: "bogus" }, 'invalid arguments: namespace must be one of "private", "shared", "all" (got "bogus")'],
    ["agent_skill_put", { name: "x", skill_md: 5 }, "invalid arguments: skill_md must be a string (got 5)"]
  ])("%s %j → %s", async (name, args, message) => {
    expect(await refusal(name, args)).toBe(message)
  })

  it("says each field once, in the words of the bound it broke", async () => {
    const message = await refusal("agent_run", { agent: 1, input: 2, wait_s: WAIT_MAX_SECONDS + 1 })
    expect(message).toBe(`invalid arguments: agent must be a string (got 1); input must be a string (got 2); wait_s must be at most ${WAIT_MAX_SECONDS} (got ${WAIT_MAX_SECONDS + 1})`)
    expect(message).not.toMatch(/Expected|undefined|actual/)
  })
})

/** Every `title` anywhere in a schema (property names are not keywords). */
const titles = (node: unknown, out: Array<string> = [], namesHere = false): Array<string> => {
  if (Array.isArray(node)) node.forEach((n) => titles(n, out))
  else if (node !== null && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (!namesHere && k === "title") out.push(String(v))
      titles(v, out, !namesHere && k === "properties")
    }
  }
  return out
}

describe("published schemas", () => {
  it("carry no library wording as titles", () => {
    for (const t of all) {
      const { inputSchema, outputSchema } = toolListing(t)
      expect(titles(inputSchema), t.name).toEqual([])
      expect(titles(outputSchema), t.name).toEqual([])
    }
  })

  it("declare the bounds the server enforces, memory limits included", () => {
    const props = (name: string) => (toolListing(tool(name)).inputSchema as { properties: Record<string, Record<string, unknown>> }).properties
    expect(props("agent_run")["wait_s"]).toMatchObject({ type: "number", minimum: 0, maximum: WAIT_MAX_SECONDS })
    for (const name of ["memory_search", "memory_list", "agent_memory_search"]) {
      expect(props(name)["limit"], name).toMatchObject({ type: "integer", minimum: 1, maximum: MEMORY_LIMITS.limitMax })
    }
    expect(props("memory_list")["offset"]).toMatchObject({ type: "integer", minimum: 0 })
  })

  it("give every tool a title of its own", () => {
    const titles = new Set<string>()
    for (const t of all) {
      expect(toolListing(t).title, t.name).toBe(t.title)
      // A title in words, not the name again: a capital, a space, no underscore.
      expect(t.title, t.name).toMatch(/^[A-Z][^_]* [^_]*$/)
      titles.add(t.title)
    }
    expect(titles.size).toBe(all.length)
  })
})
