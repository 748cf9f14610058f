/**
 * Bad input over the real listener: a share of the generated cases through `fetch` and the daemon's
 * HTTP server (the transport path the in-process bulk skips), the same cases answered alike by both
 * paths (so the in-process bulk stands for HTTP), and the SDK's own `Client` calling every tool with
 * schema-generated arguments (it also checks each success against the tool's output schema).
 */
import { type Client, ProtocolError } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ServerKind } from "../../src/edge/mcp/catalog/listing.ts"
import { META_TOOL_NAMES } from "../../src/edge/mcp/meta-tools/index.ts"
import { memoryTools } from "../../src/edge/mcp/memory-tools/index.ts"
import { agentTools } from "../../src/edge/mcp/agent-tools/index.ts"
import type { ToolDef } from "../../src/edge/mcp/ToolDef.ts"
import { connectMcp } from "../support/daemon.ts"
import { type CaseCounts, caseSource, type FuzzCase, type Hot } from "./support/cases.ts"
import { type FuzzClient, type FuzzDaemon, startFuzzDaemon } from "./support/fuzzDaemon.ts"
import { runCases, seedHot } from "./support/run.ts"
import { Tally } from "./support/tally.ts"
import { judgeResult } from "./support/verdict.ts"
import { type Answer, inProcess, keepAliveRetries, openSession, overHttp } from "./support/wire.ts"

const SEED = Number(process.env["FUZZ_SEED"] ?? 20261130) + 1
const SCALE = Number(process.env["FUZZ_SCALE"] ?? 1)
const scaled = (n: number) => Math.max(1, Math.round(n * SCALE))
const HTTP_COUNTS: CaseCounts = { schema: scaled(10), biased: scaled(10), hostile: scaled(12), shape: scaled(18) }
const PARITY_COUNTS: CaseCounts = { schema: scaled(4), biased: 0, hostile: scaled(6), shape: scaled(6) }
const SDK_CALLS = scaled(5)
const BUDGET_MS = 600_000

/** What must match between the two paths: the kind of answer, the error code, the error text. */
const comparable = (a: Answer): string => {
  if (a._tag === "rpc-error") return `rpc ${a.code} ${a.message}`
  if (a._tag === "http-error") return `http ${a.status}`
  if (a.result["isError"] !== true) return "ok"
  const text = (a.result["content"] as ReadonlyArray<{ text?: string }>).map((c) => c.text ?? "").join("")
  // Incident ids differ per call by design.
  return `error ${text.replace(/inc_[0-9a-f]{16}/g, "inc_…")}`
}

describe("fuzz over the real HTTP listener", () => {
  let daemon: FuzzDaemon
  let hot: Hot
  const tally = new Tally()
  let parityChecked = 0
  let sdkCalls = 0

  beforeAll(async () => {
    daemon = await startFuzzDaemon()
    hot = await seedHot(daemon)
  }, 120_000)
  afterAll(async () => {
    console.log(tally.report(`fuzz (HTTP, seed ${SEED}, scale ${SCALE})`))
    console.log(`parity: ${parityChecked} cases answered alike in-process and over HTTP; SDK client: ${sdkCalls} calls; requests resent after a kept-alive socket closed on reuse: ${keepAliveRetries.count}`)
    await daemon?.close()
  })

  const servers: ReadonlyArray<{ kind: ServerKind; client: () => FuzzClient; tools: () => ReadonlyArray<ToolDef> }> = [
    { kind: "agents", client: () => daemon.clients.fuzz, tools: () => agentTools },
    { kind: "agents", client: () => daemon.clients.fuzzc, tools: () => META_TOOL_NAMES.map((n) => daemon.catalog.find("agents", daemon.clients.fuzzc.caller, n)!) },
    { kind: "memory", client: () => daemon.clients.fuzz, tools: () => memoryTools }
  ]

  it("every tool over HTTP: no crash, no bridge.internal, only typed refusals", async () => {
    for (const server of servers) {
      const client = server.client()
      const lookup = (name: string) => daemon.catalog.find(server.kind, client.caller, name)
      const source = caseSource(hot, agentTools, SEED + server.tools().length)
      const session = await openSession(overHttp(daemon, client), server.kind)
      for (const tool of server.tools()) {
        const t0 = performance.now()
        await runCases(session, source.casesFor(tool, HTTP_COUNTS), lookup, tally)
        tally.time(tool.name, performance.now() - t0)
      }
      await session.close()
    }
    expect(tally.problems.slice(0, 10)).toEqual([])
    expect(tally.count("refused bridge.")).toBeGreaterThan(0)
    expect(await daemon.healthy()).toBe(true)
  }, BUDGET_MS)

  it("answers the same cases alike in-process and over HTTP", async () => {
    const mismatches: Array<string> = []
    for (const server of servers) {
      const client = server.client()
      const source = caseSource(hot, agentTools, SEED + 7)
      const local = await openSession(inProcess(daemon, client), server.kind)
      const remote = await openSession(overHttp(daemon, client), server.kind)
      const cases: ReadonlyArray<FuzzCase> = server.tools().flatMap((tool) => source.casesFor(tool, PARITY_COUNTS))
      for (const c of cases) {
        const [a, b] = [await local.callTool(c.tool, c.args), await remote.callTool(c.tool, c.args)]
        parityChecked += 1
        if (comparable(a) !== comparable(b)) mismatches.push(`${c.tool} ${(c.args ?? "").slice(0, 120)}\n  in-process: ${comparable(a).slice(0, 200)}\n  http:       ${comparable(b).slice(0, 200)}`)
      }
      await local.close()
      await remote.close()
    }
    expect(mismatches.slice(0, 5)).toEqual([])
  }, BUDGET_MS)

  it("the SDK's Client calls every tool with generated arguments and gets typed answers", async () => {
    const problems: Array<string> = []
    for (const server of servers) {
      const client = server.client()
      const lookup = (name: string) => daemon.catalog.find(server.kind, client.caller, name)
      const source = caseSource(hot, agentTools, SEED + 11)
      const sdk: Client = await connectMcp(daemon.url, client.key, server.kind)
      // Listing first lets the client check each structuredContent against the tool's output schema.
      await sdk.listTools()
      for (const tool of server.tools()) {
        for (const c of source.casesFor(tool, { schema: SDK_CALLS, biased: SDK_CALLS, hostile: 0, shape: 0 })) {
          const args = JSON.parse(c.args ?? "{}") as Record<string, unknown>
          sdkCalls += 1
          try {
            const result = (await sdk.callTool({ name: c.tool, arguments: args })) as Record<string, unknown>
            const v = judgeResult(tool, args, result, lookup)
            if (v.problem !== undefined) problems.push(`${c.tool}: ${v.problem}`)
          } catch (e) {
            problems.push(`${c.tool}: ${e instanceof ProtocolError ? `ProtocolError ${e.code}` : "threw"} ${String(e).slice(0, 300)}`)
          }
        }
      }
      await sdk.close()
    }
    expect(problems.slice(0, 5)).toEqual([])
  }, BUDGET_MS)
})
