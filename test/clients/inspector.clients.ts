/**
 * The MCP Inspector CLI (2.12, on Node 22) against the real daemon in both protocol eras: the
 * tool list, a delegated run to completion on the built-in simulator, a clarification answered,
 * and a bad input that comes back as a typed error. Each call is its own Inspector process, as in
 * a script. Until the daemon's MCP edge serves the 2026-07-28 revision, the modern era fails at
 * version negotiation (a v1-SDK server offers no `server/discover`); that failure is left loud.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { agentTools } from "../../src/edge/mcp/agent-tools/index.ts"
import { type Bridge, startBridge } from "./support/bridge.ts"
import { callTool, type Era, inspector } from "./support/inspector.ts"
import { type ProxySink, startProxySink } from "./support/proxySink.ts"
import { BIN, describeRun, makeHome, removeDir, requireInstalled, run, toolEnv, VERSIONS } from "./support/tools.ts"

let dir: string
let bridge: Bridge
let sink: ProxySink
let env: Record<string, string>

beforeAll(async () => {
  requireInstalled(`${BIN}/mcp-inspector`)
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-bridge-inspector-"))
  sink = await startProxySink()
  bridge = await startBridge(dir, "inspector")
  env = toolEnv({ home: makeHome(dir, "home"), proxy: sink.url })
})

afterAll(async () => {
  await bridge?.close()
  await sink?.close()
  removeDir(dir)
})

it(`is the pinned Inspector ${VERSIONS.inspector}`, async () => {
  const v = await run(`${BIN}/mcp-inspector`, ["--cli", "--version"], { env, timeoutMs: 60_000 })
  expect(v.stdout.trim(), describeRun(v)).toBe(VERSIONS.inspector)
})

/**
 * The Inspector 2.12 declares the Tasks extension on every 2026-07-28 request (its default), so the
 * bridge answers its `agent_run` with a task, which the CLI follows to the end and prints the
 * final result: the run view. A question the run asks leaves the task
 * `input_required`; the CLI, with no one to ask, keeps polling. So the question is answered meanwhile
 * by the same client over the run tools (`agent_run_answer`), and the Inspector's call ends with
 * the completed run.
 */
const clarifiedAsTask = async (base: { url: string; key: string; era: Era; env: Record<string, string> }) => {
  const calling = callTool(base, "agent_run", { agent: "hermes", input: "[sim:clarify] deploy the site as a task" })
  const client = await bridge.inspect()
  let pending: any
  for (let i = 0; i < 300 && pending === undefined; i++) {
    const listed = (await client.callTool({ name: "agent_runs_list", arguments: { status: "waiting_for_clarification" } })).structuredContent as any
    pending = listed.runs.find((r: any) => r.input_preview.includes("as a task"))
    if (pending === undefined) await new Promise((r) => setTimeout(r, 100))
  }
  expect(pending?.pending).toMatchObject({ kind: "clarification", question: "Which environment should I deploy to?" })
  const answered = await client.callTool({ name: "agent_run_answer", arguments: { run_id: pending.run_id, request_id: pending.pending.request_id, answer: "staging" } })
  expect(answered.isError).toBeFalsy()
  const done = await calling
  expect(done.json.error, describeRun(done.run)).toBeUndefined()
  expect(done.json.result.structuredContent).toMatchObject({ run_id: pending.run_id, status: "completed" })
  expect(done.json.result.structuredContent.output).toContain("You chose: staging.")
  expect(sink.hits).toEqual([])
}

describe.each<Era>(["legacy", "modern"])("Inspector CLI, %s era", (era) => {
  const base = () => ({ url: bridge.mcpUrl, key: bridge.setup.key, era, env })

  it("lists every tool of the agents server", async () => {
    const r = await inspector({ ...base(), args: ["--method", "tools/list"] })
    expect(r.json.error, describeRun(r.run)).toBeUndefined()
    const names = (r.json.result.tools as Array<{ name: string }>).map((t) => t.name)
    expect([...names].sort()).toEqual(agentTools.map((t) => t.name).sort())
    expect(names).toEqual(expect.arrayContaining(["agents_list", "agent_run", "agent_run_wait", "agent_run_answer", "agent_run_status"]))
    expect(sink.hits).toEqual([])
  })

  it("delegates a run and waits for it to complete", async () => {
    const started = await callTool(base(), "agent_run", { agent: "hermes", input: `check the ${era} build` })
    expect(started.json.error, describeRun(started.run)).toBeUndefined()
    const runId = started.json.result.structuredContent.run_id as string
    expect(runId).toMatch(/^run_/)
    let view: any
    for (let i = 0; i < 5; i++) {
      const waited = await callTool(base(), "agent_run_wait", { run_id: runId, timeout_s: 20 })
      expect(waited.json.error, describeRun(waited.run)).toBeUndefined()
      view = waited.json.result.structuredContent
      if (view.timed_out !== true) break
    }
    expect(view.status).toBe("completed")
    expect(view.output).toContain(`I looked into "check the ${era} build"`)
    expect(sink.hits).toEqual([])
  })

  it("answers a clarification the run asks for", async () => {
    if (era === "modern") return await clarifiedAsTask(base())
    const started = await callTool(base(), "agent_run", { agent: "hermes", input: "[sim:clarify] deploy the site" })
    expect(started.json.error, describeRun(started.run)).toBeUndefined()
    const runId = started.json.result.structuredContent.run_id as string
    const asked = await callTool(base(), "agent_run_wait", { run_id: runId, timeout_s: 30 })
    const pending = asked.json.result?.structuredContent?.pending
    expect(pending, describeRun(asked.run)).toMatchObject({ kind: "clarification", question: "Which environment should I deploy to?", choices: ["staging", "production"] })
    const answered = await callTool(base(), "agent_run_answer", { run_id: runId, request_id: pending.request_id, answer: "staging" })
    expect(answered.json.error, describeRun(answered.run)).toBeUndefined()
    const done = await callTool(base(), "agent_run_wait", { run_id: runId, timeout_s: 30 })
    expect(done.json.result.structuredContent).toMatchObject({ status: "completed", timed_out: false })
    expect(done.json.result.structuredContent.output).toContain("You chose: staging.")
  })

  it("gets a typed error for a bad input", async () => {
    const r = await callTool(base(), "agent_run", { agent: "hermes", input: "too long a wait", wait_s: 601 })
    // The Inspector exits 5 when the tool answers isError, and still prints the result.
    expect(r.run.status, describeRun(r.run)).toBe(5)
    expect(r.json.result.isError).toBe(true)
    expect(r.json.result._meta["agent-bridge/error"]).toEqual({ code: "bridge.invalid_input", status: 422 })
    const text = (r.json.result.content as Array<{ text: string }>).map((c) => c.text).join("")
    expect(text).toContain("bridge.invalid_input")
    expect(text).toContain("wait_s")
  })
})
