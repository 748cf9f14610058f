/**
 * Bad input, in bulk: every tool of both MCP servers (16 agent tools and 4 memory tools, plus
 * tool_search / tool_describe / tool_call for a compact-catalog client) with generated arguments,
 * sent in-process through `McpSessions.handle` (see support/wire.ts: the path an HTTP request takes
 * after the socket, SDK transport and JSON-RPC included; transport.fuzz.test.ts proves the two paths
 * answer alike). Expected: 0 crashes or hangs, 0 `bridge.internal`, every refusal a typed code whose
 * message names the problem, protocol errors only for protocol faults (support/verdict.ts).
 *
 * `FUZZ_SEED` replays a run; `FUZZ_SCALE` multiplies the number of cases (default 1: about 11,000).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { META_TOOL_NAMES } from "../../src/edge/mcp/meta-tools/index.ts"
import { memoryTools } from "../../src/edge/mcp/memory-tools/index.ts"
import { agentTools } from "../../src/edge/mcp/agent-tools/index.ts"
import type { ToolDef } from "../../src/edge/mcp/ToolDef.ts"
import { type CaseCounts, caseSource, type Hot } from "./support/cases.ts"
import { type FuzzClient, type FuzzDaemon, startFuzzDaemon } from "./support/fuzzDaemon.ts"
import { runCases, seedHot, unknownToolCases } from "./support/run.ts"
import { Tally } from "./support/tally.ts"
import { inProcess, openSession } from "./support/wire.ts"
import type { ServerKind } from "../../src/edge/mcp/catalog/listing.ts"

const SEED = Number(process.env["FUZZ_SEED"] ?? 20261130)
const SCALE = Number(process.env["FUZZ_SCALE"] ?? 1)
const scaled = (n: number) => Math.max(1, Math.round(n * SCALE))
const COUNTS: CaseCounts = { schema: scaled(150), biased: scaled(150), hostile: scaled(150), shape: scaled(18) }
/** Whole-run budget: generous for a loaded 2-core machine; the run takes about a minute. */
const BUDGET_MS = 600_000

const UNKNOWN_NAMES = ["", " ", "agents_List", "agent_run ", "agent_run\u0000", "\ud800", "x".repeat(10_000), "__proto__", "constructor", "toString"]

describe("fuzz: every tool, in-process through McpSessions", () => {
  let daemon: FuzzDaemon
  let hot: Hot
  const tally = new Tally()

  beforeAll(async () => {
    daemon = await startFuzzDaemon()
    hot = await seedHot(daemon)
  }, 120_000)
  afterAll(async () => {
    console.log(tally.report(`fuzz (in-process, seed ${SEED}, scale ${SCALE})`))
    await daemon?.close()
  })

  /** One server as one client sees it: its callable tools get the generated cases, then junk names. */
  const fuzzServer = async (kind: ServerKind, client: FuzzClient, tools: ReadonlyArray<ToolDef>, extraUnknown: ReadonlyArray<string>) => {
    const lookup = (name: string) => daemon.catalog.find(kind, client.caller, name)
    // Nested tool_call inputs name the agent tools (no client here has a filter).
    const source = caseSource(hot, agentTools, SEED + tools.length)
    const session = await openSession(inProcess(daemon, client), kind)
    for (const tool of tools) {
      expect(lookup(tool.name), `${tool.name} is callable by ${client.name}`).toBeDefined()
      const t0 = performance.now()
      await runCases(session, source.casesFor(tool, COUNTS), lookup, tally)
      tally.time(tool.name, performance.now() - t0)
    }
    await runCases(session, unknownToolCases([...UNKNOWN_NAMES, ...extraUnknown]), lookup, tally)
    await session.close()
  }

  it("agents server, full catalog: every tool", async () => {
    const meta = [...META_TOOL_NAMES] // not callable without the compact catalog
    await fuzzServer("agents", daemon.clients.fuzz, agentTools, [...meta, ...memoryTools.map((t) => t.name)])
  }, BUDGET_MS)

  it("agents server, compact catalog: tool_search, tool_describe, tool_call", async () => {
    const lookup = (name: string) => daemon.catalog.find("agents", daemon.clients.fuzzc.caller, name)
    const meta = META_TOOL_NAMES.map((n) => lookup(n)!)
    await fuzzServer("agents", daemon.clients.fuzzc, meta, memoryTools.map((t) => t.name))
  }, BUDGET_MS)

  it("memory server: the 4 tools", async () => {
    await fuzzServer("memory", daemon.clients.fuzz, memoryTools, agentTools.map((t) => t.name))
  }, BUDGET_MS)

  it("found no crash, no bridge.internal, no untyped refusal; the daemon is still healthy", async () => {
    expect(tally.total).toBeGreaterThanOrEqual(10_000 * Math.min(1, SCALE))
    expect(tally.count("refused bridge.")).toBeGreaterThan(0)
    expect(tally.count("ok")).toBeGreaterThan(0)
    expect(tally.problems.slice(0, 10)).toEqual([])
    expect(await daemon.healthy()).toBe(true)
  })
})
