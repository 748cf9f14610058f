/**
 * The servers' `instructions` name tools in prose; nothing else ties those names to the registries,
 * so a renamed or removed tool would leave the model told to call a tool that does not exist. Every
 * tool-shaped word in them must be a tool of that server, and each server's instructions must name
 * its core tools (the ones a client needs to delegate at all).
 */
import { describe, expect, it } from "vitest"
import { agentTools } from "../../src/edge/mcp/agent-tools/index.ts"
import { CORE_TOOL_NAMES } from "../../src/edge/mcp/catalog/clientCatalog.ts"
import { SERVER_INSTRUCTIONS } from "../../src/edge/mcp/instructions.ts"
import { memoryTools } from "../../src/edge/mcp/memory-tools/index.ts"

/** Words shaped like this repo's tool names: `agent_run_wait`, `agents_list`, `memory_add`. */
const TOOL_WORD = /\b(?:agents?|memory)_[a-z_]+\b/g

const toolWords = (text: string): ReadonlyArray<string> => [...new Set(text.match(TOOL_WORD) ?? [])]

describe("server instructions name real tools", () => {
  const registries = { agents: agentTools.map((t) => t.name), memory: memoryTools.map((t) => t.name) } as const

  for (const kind of ["agents", "memory"] as const) {
    it(`every tool the ${kind} server's instructions name is one of its tools`, () => {
      const named = toolWords(SERVER_INSTRUCTIONS[kind])
      expect(named.length).toBeGreaterThan(0)
      expect(named.filter((name) => !registries[kind].includes(name))).toEqual([])
    })
  }

  it("the agents server's instructions name every core tool", () => {
    const named = toolWords(SERVER_INSTRUCTIONS.agents)
    expect(CORE_TOOL_NAMES.filter((name) => !named.includes(name))).toEqual([])
  })

  it("the detector finds a tool name that is not registered (self-test)", () => {
    const named = toolWords("call agent_run_teleport, then memory_add.")
    expect(named).toEqual(["agent_run_teleport", "memory_add"])
    expect(named.filter((name) => !registries.agents.includes(name))).toContain("agent_run_teleport")
  })
})
