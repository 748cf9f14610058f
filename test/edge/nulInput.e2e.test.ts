/**
 * A NUL character (U+0000) in a request is invalid input where it enters, on both databases (issue 37
 * item 8a). On PostgreSQL a run's input with one was `bridge.store_unavailable` (503, "retry later")
 * after Hermes had started the run; every other string a client can send (memory notes, tags and
 * queries, skill texts, run ids, A2A message parts and metadata) met the same write or lookup. Each
 * is refused with the face's invalid-input error, and nothing is started or stored.
 */
import type { Client } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeClient } from "../inbox/fetchClient.ts"
import { connectMcp, errorTextOf, startDaemon, type TestDaemon, tempDir, testConfig } from "../support/daemon.ts"

type Json = Record<string, any>
let daemon: TestDaemon
let key = ""
let agents: Client
let memory: Client

const call = (c: Client, name: string, args: Json) => c.callTool({ name, arguments: args })
const a2a = async (method: string, params: Json) => {
  const res = await fetch(`${daemon.url}/a2a`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 5, method, params })
  })
  return { status: res.status, body: (await res.json()) as Json }
}
const runsListed = async () => (await call(agents, "agent_runs_list", {}) as { structuredContent: Json }).structuredContent["runs"].length as number

beforeAll(async () => {
  daemon = await startDaemon(testConfig({ hermes: { url: "sim" } }, tempDir()))
  key = await daemon.addClient("nul", ["agents", "a2a", "memory"])
  agents = await connectMcp(daemon.url, key)
  memory = await connectMcp(daemon.url, key, "memory")
}, 60_000)
afterAll(async () => {
  await agents?.close().catch(() => undefined)
  await memory?.close().catch(() => undefined)
  await daemon?.close()
})

describe("a NUL over MCP", () => {
  it("in a run's input or instructions is bridge.invalid_input naming the field, and no run starts", async () => {
    for (const [field, args] of [["input", { input: "hello\u0000world" }], ["instructions", { input: "hello", instructions: "\u0000" }]] as const) {
      const text = errorTextOf(await call(agents, "agent_run", { agent: "hermes", ...args }))
      expect(text).toContain("bridge.invalid_input")
      expect(text).toContain(field)
      expect(text).toContain("U+0000")
    }
    expect(await runsListed()).toBe(0)
  })

  it("in a run id, a steer or an answer is bridge.invalid_input (not store_unavailable)", async () => {
    expect(errorTextOf(await call(agents, "agent_run_status", { run_id: "run_\u0000" }))).toContain("bridge.invalid_input")
    expect(errorTextOf(await call(agents, "agent_run_steer", { run_id: "run_x", input: "left\u0000" }))).toContain("bridge.invalid_input")
    expect(errorTextOf(await call(agents, "agent_run_answer", { run_id: "run_x", request_id: "r", answer: ["a\u0000"] }))).toContain("bridge.invalid_input")
  })

  it("in a memory note, a tag or a query is bridge.memory_invalid, and nothing is stored", async () => {
    expect(errorTextOf(await call(memory, "memory_add", { text: "note\u0000" }))).toContain("bridge.memory_invalid")
    expect(errorTextOf(await call(memory, "memory_add", { text: "note", tags: ["t\u0000"] }))).toContain("bridge.memory_invalid")
    expect(errorTextOf(await call(memory, "memory_search", { query: "q\u0000" }))).toContain("bridge.memory_invalid")
    const listed = (await call(memory, "memory_list", {}) as { structuredContent: Json }).structuredContent
    expect(listed["notes"]).toEqual([])
  })

  it("in a skill's texts is bridge.skill_invalid", async () => {
    const skillMd = "---\nname: nul-skill\ndescription: a skill\n---\nbody\u0000"
    expect(errorTextOf(await call(agents, "agent_skill_put", { name: "nul-skill", skill_md: skillMd }))).toContain("bridge.skill_invalid")
    const clean = "---\nname: nul-skill\ndescription: a skill\n---\nbody"
    expect(errorTextOf(await call(agents, "agent_skill_put", { name: "nul-skill", skill_md: clean, files: { "a.md": "x\u0000" } }))).toContain("bridge.skill_invalid")
  })
})

describe("a NUL over A2A", () => {
  it("in a message part is invalid input (bridge.invalid_input), and no task starts", async () => {
    const sent = await a2a("SendMessage", { message: { messageId: "m-nul", role: "ROLE_USER", parts: [{ text: "hello\u0000" }] } })
    expect(sent.body["error"]).toBeDefined()
    expect(sent.body["error"].code).not.toBe(-32603)
    expect(JSON.stringify(sent.body["error"])).toContain("bridge.invalid_input")
    expect(JSON.stringify(sent.body["error"])).toContain("U+0000")
    expect(await runsListed()).toBe(0)
  })

  it("in metadata or a task id is invalid input too", async () => {
    const meta = await a2a("SendMessage", { message: { messageId: "m-nul-2", role: "ROLE_USER", parts: [{ text: "hi" }], metadata: { note: "\u0000" } } })
    expect(JSON.stringify(meta.body["error"])).toContain("bridge.invalid_input")
    const got = await a2a("GetTask", { id: "run_\u0000" })
    expect(JSON.stringify(got.body["error"])).toContain("bridge.invalid_input")
    expect(await runsListed()).toBe(0)
  })
})

describe("a NUL in the operator's pages", () => {
  it("in a run, row or client of a path, or a filter, is not found (never a store failure)", async () => {
    const web = makeClient(daemon.url)
    expect((await web.signIn(daemon.adminKey)).status).toBe(303)
    expect((await web.send("GET", "/inbox/runs/run_%00")).status).toBe(404)
    expect((await web.send("GET", "/inbox/rows/%00")).status).toBe(404)
    expect((await web.send("GET", "/inbox/runs?client=%00")).status).toBe(404)
    expect((await web.send("GET", "/inbox/runs?client=nul")).status).toBe(200)
    const clients = await web.send("GET", "/inbox/clients")
    const res = await web.send("POST", "/inbox/clients/nul%00", { csrf: web.csrfOf(clients.body), action: "revoke" })
    expect(res.status).toBeLessThan(500)
  })
})
