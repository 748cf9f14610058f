/**
 * `tool_call` takes exactly the path of a direct call: every agent tool is called
 * directly and through `tool_call`, by the same client with the same arguments, and each inner
 * result must equal the direct call's result byte for byte, as both came over the wire.
 *
 * The test asserts nothing about what the tools answer, only that both ways answer the same. The
 * arguments are chosen so that a correct bridge answers a repeated call identically whatever services
 * are running (a refusal, a read, or a request the seed makes idempotent), never with fresh ids.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { agentTools } from "../../src/edge/mcp/agent-tools/index.ts"
import { type CatalogFixture, startCatalogDaemon } from "./support/fixture.ts"
import { openWire, type WireSession } from "./support/wire.ts"

const MISSING_RUN = `run_${"0".repeat(32)}`
const SKILL_MD = "---\nname: parity-check\ndescription: A skill pushed twice with the same content.\n---\n\n## Steps\n1. Nothing.\n"

interface Case {
  readonly name: string
  readonly arguments?: Record<string, unknown>
}

const HAND_CASES: ReadonlyArray<Case> = [
  { name: "agents_list", arguments: {} },
  { name: "agents_list" },
  { name: "agents_list", arguments: { verbose: true } },
  { name: "agent_run", arguments: { agent: "hermes/nope", input: "Summarize the README." } },
  { name: "agent_run", arguments: { agent: "hermes", input: "x", session_key: "has a space" } },
  { name: "agent_run", arguments: { agent: "hermes" } },
  { name: "agent_run_wait", arguments: { run_id: MISSING_RUN, timeout_s: 0 } },
  { name: "agent_run_wait", arguments: { run_id: MISSING_RUN, timeout_s: 601 } },
  { name: "agent_run_status", arguments: { run_id: MISSING_RUN } },
  { name: "agent_run_status", arguments: { run_id: MISSING_RUN, offset: -1 } },
  { name: "agent_run_events", arguments: { run_id: MISSING_RUN, since_seq: 0, limit: 5 } },
  { name: "agent_run_events", arguments: { run_id: MISSING_RUN, limit: 0 } },
  { name: "agent_run_answer", arguments: { run_id: MISSING_RUN, request_id: "req_1", answer: ["a", "b"] } },
  { name: "agent_run_steer", arguments: { run_id: MISSING_RUN, input: "Prefer small commits." } },
  { name: "agent_run_stop", arguments: { run_id: MISSING_RUN } },
  { name: "agent_runs_list", arguments: {} },
  { name: "agent_runs_list", arguments: { status: "bogus" } },
  { name: "agent_memory_add", arguments: { agent: "nobody", text: "a note" } },
  { name: "agent_memory_add", arguments: { agent: "hermes", text: 42 } },
  { name: "agent_memory_search", arguments: { agent: "hermes", query: "deploy checklist", limit: 3 } },
  { name: "agent_skills_list", arguments: {} },
  { name: "agent_skill_get", arguments: { name: "no-such-skill" } },
  { name: "agent_skill_put", arguments: { name: "parity-check", skill_md: "no frontmatter here" } },
  { name: "agent_skill_put", arguments: { name: "parity-check", skill_md: SKILL_MD } },
  { name: "agent_skill_delete", arguments: { name: "no-such-skill" } },
  { name: "agent_capabilities", arguments: { agent: "hermes" } },
  { name: "agent_capabilities", arguments: { agent: "hermes/nope" } }
]

/**
 * Every tool is called: by its hand cases above, or, for a tool that has none yet, with no arguments
 * (a refusal or a read, both repeatable), so a new tool is parity-checked the day it is registered.
 */
const CASES: ReadonlyArray<Case> = [
  ...HAND_CASES,
  ...agentTools.filter((t) => !HAND_CASES.some((c) => c.name === t.name)).map((t) => ({ name: t.name, arguments: {} }))
]

const params = (c: Case) => (c.arguments === undefined ? { name: c.name } : { name: c.name, arguments: c.arguments })
const call = (c: Case) => (c.arguments === undefined ? { name: c.name } : { name: c.name, arguments: c.arguments })

interface BridgedResult {
  readonly structuredContent: { readonly results: ReadonlyArray<{ readonly name: string; readonly result: unknown }> }
  readonly content: ReadonlyArray<{ readonly type: string; readonly text: string }>
  readonly isError?: boolean
}

describe("tool_call parity with direct calls", () => {
  let fx: CatalogFixture
  let wire: WireSession
  beforeAll(async () => {
    fx = await startCatalogDaemon()
    wire = await openWire(fx.daemon.url, fx.keys.compact)
  })
  afterAll(async () => {
    await wire.close()
    await fx.daemon.close()
  })

  it("covers every agent tool, each of the 16 seed tools with hand-picked cases", () => {
    expect(new Set(CASES.map((c) => c.name))).toEqual(new Set(agentTools.map((t) => t.name)))
    expect(new Set(HAND_CASES.map((c) => c.name)).size).toBe(16)
  })

  const bridged = async (calls: ReadonlyArray<Case>): Promise<BridgedResult> => {
    const result = JSON.parse(await wire.result("tools/call", { name: "tool_call", arguments: { calls: calls.map(call) } })) as BridgedResult
    expect(result.isError).toBeUndefined()
    // The text block carries the same results as structuredContent.
    expect(result.content).toHaveLength(1)
    expect(JSON.stringify(JSON.parse(result.content[0]!.text))).toBe(JSON.stringify(result.structuredContent))
    return result
  }

  it("answers each call byte for byte as the direct call does, errors naming the real tool", async () => {
    for (const c of CASES) {
      const direct = await wire.result("tools/call", params(c))
      const { structuredContent } = await bridged([c])
      expect(structuredContent.results).toHaveLength(1)
      expect(structuredContent.results[0]!.name).toBe(c.name)
      const inner = JSON.stringify(structuredContent.results[0]!.result)
      expect(inner, `${c.name} ${JSON.stringify(c.arguments)}`).toBe(direct)

      const parsed = JSON.parse(direct) as { isError?: boolean; content: ReadonlyArray<{ text: string }> }
      if (parsed.isError === true) expect(parsed.content[0]!.text).toMatch(new RegExp(`^Error executing tool ${c.name}: bridge\\.[a-z_]+: `))
    }
  })

  it("answers a batch in order, each result equal to its direct call", async () => {
    const directs = []
    for (const c of CASES.slice(0, 10)) directs.push(await wire.result("tools/call", params(c)))
    const { structuredContent } = await bridged(CASES.slice(0, 10))
    expect(structuredContent.results.map((r) => r.name)).toEqual(CASES.slice(0, 10).map((c) => c.name))
    expect(structuredContent.results.map((r) => JSON.stringify(r.result))).toEqual(directs)
  })

  it("runs nothing when a name is unknown, and says so as tool_call's own typed error", async () => {
    const answer = JSON.parse(await wire.result("tools/call", {
      name: "tool_call",
      arguments: { calls: [{ name: "agents_list", arguments: {} }, { name: "agent_run_nope", arguments: {} }] }
    })) as { isError?: boolean; content: ReadonlyArray<{ text: string }>; structuredContent?: unknown }
    expect(answer.isError).toBe(true)
    expect(answer.structuredContent).toBeUndefined()
    expect(answer.content[0]!.text).toBe(
      "Error executing tool tool_call: bridge.invalid_input: unknown tool: agent_run_nope; nothing was called (tool_search finds the tools you can call)"
    )
  })

  it("refuses malformed batches with tool_call's own decoding", async () => {
    for (const args of [{}, { calls: [] }, { calls: [{ name: "agents_list", arguments: "x" }] }, { calls: [{ name: "agents_list", extra: 1 }] }]) {
      const answer = JSON.parse(await wire.result("tools/call", { name: "tool_call", arguments: args })) as {
        isError?: boolean
        content: ReadonlyArray<{ text: string }>
      }
      expect(answer.isError).toBe(true)
      expect(answer.content[0]!.text).toMatch(/^Error executing tool tool_call: bridge\.invalid_input: invalid arguments: /)
    }
  })
})
