/**
 * The A2A face (issue 27, items 1 and 2): the card, the scope, and the JSON-RPC methods over the
 * runs service, against a daemon and the simulator. Every call is plain HTTP to 127.0.0.1.
 */
import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { startDaemon, type TestDaemon, tempDir, testConfig } from "../support/daemon.ts"
import { until } from "../support/poll.ts"

type Json = Record<string, any>

let sim: SimulatorAsync
let daemon: TestDaemon
let alice: string
let bob: string
let mcpOnly: string
let next = 1

const rpc = async (key: string, method: string, params: Json = {}): Promise<Json> => {
  const res = await fetch(`${daemon.url}/a2a`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: next++, method, params })
  })
  return (await res.json()) as Json
}
const msg = (text: string, extra: Json = {}) => ({ messageId: `m-${Math.random().toString(16).slice(2)}`, role: "ROLE_USER", parts: [{ text }], ...extra })
const send = (key: string, text: string, extra: Json = {}, configuration: Json = {}) =>
  rpc(key, "SendMessage", { message: msg(text, extra), configuration })

const runsOf = async (key: string) => (await rpc(key, "ListTasks", { pageSize: 100 }))["result"].tasks.length as number

beforeAll(async () => {
  sim = await startSimulatorAsync({ maxConcurrentRuns: 40 })
  // Room for the 210-task listing below to start its tasks 20 at a time (at 4, on a loaded machine,
  // its 53 rounds once took past two minutes).
  daemon = await startDaemon(testConfig({ hermes: { url: sim.url, key: sim.profile("default").key, max_concurrent_runs: 40 }, bridge: { max_concurrent_runs_per_client: 20 } }, tempDir()))
  alice = await daemon.addClient("alice", ["agents", "a2a"])
  bob = await daemon.addClient("bob", ["agents", "a2a"])
  mcpOnly = await daemon.addClient("mcp-only", ["agents"])
}, 60_000)
afterAll(async () => {
  await daemon?.close()
  await sim?.close()
})

describe("the agent card", () => {
  it("is public JSON at the well-known path: one JSON-RPC interface, bearer keys, a skill per runnable agent", async () => {
    const res = await fetch(`${daemon.url}/.well-known/agent-card.json`)
    expect(res.status).toBe(200)
    const card = (await res.json()) as Json
    expect(card["supportedInterfaces"]).toEqual([{ url: `${daemon.url}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }])
    expect(card["capabilities"]).toMatchObject({ streaming: true, pushNotifications: false })
    expect(card["securitySchemes"].bridgeKey.httpAuthSecurityScheme.scheme).toBe("Bearer")
    expect(card["skills"].map((s: Json) => s.id)).toEqual(["hermes"])
  })
})

describe("POST /a2a", () => {
  it("needs a key with the a2a scope", async () => {
    const none = await fetch(`${daemon.url}/a2a`, { method: "POST", body: "{}" })
    expect(none.status).toBe(403)
    const scoped = await fetch(`${daemon.url}/a2a`, { method: "POST", headers: { authorization: `Bearer ${mcpOnly}` }, body: "{}" })
    expect(scoped.status).toBe(403)
    expect(((await scoped.json()) as Json)["error"].message).toContain("a2a scope")
  })

  it("SendMessage (blocking) runs to completion; the output is the task's artifact; GetTask reads it again", async () => {
    const sent = await send(alice, "check the build", { contextId: "ctx-1" })
    const task = sent["result"].task
    expect(task.status.state).toBe("TASK_STATE_COMPLETED")
    expect(task.contextId).toBe("ctx-1")
    expect(task.artifacts[0].parts[0].text).toContain('I looked into "check the build"')
    const got = await rpc(alice, "GetTask", { id: task.id, historyLength: 0 })
    expect(got["result"].status.state).toBe("TASK_STATE_COMPLETED")
    expect(got["result"].history ?? []).toEqual([])
    expect((await rpc(alice, "GetTask", { id: task.id }))["result"].history[0].role).toBe("ROLE_USER")
  })

  it("the same messageId is the same task (the idempotency key)", async () => {
    const m = msg("once only")
    const a = await rpc(alice, "SendMessage", { message: m, configuration: { returnImmediately: true } })
    const b = await rpc(alice, "SendMessage", { message: m, configuration: { returnImmediately: true } })
    expect(b["result"].task.id).toBe(a["result"].task.id)
  })

  it("output is redacted like every other read", async () => {
    const task = (await send(alice, "[sim:secrets] leak"))["result"].task
    const text = task.artifacts[0].parts.map((p: Json) => p.text).join("")
    expect(text).not.toMatch(/sk-proj-[A-Za-z0-9]{10}/)
    expect(text).toContain("***REDACTED***")
  })

  it("a clarification is INPUT_REQUIRED; a SendMessage to the task answers it", async () => {
    const asked = (await send(alice, "[sim:clarify] deploy"))["result"].task
    expect(asked.status.state).toBe("TASK_STATE_INPUT_REQUIRED")
    expect(asked.status.message.parts[0].text).toContain("Which environment")
    const answered = await send(alice, "staging", { taskId: asked.id, contextId: asked.contextId })
    expect(answered["result"].task.status.state).toBe("TASK_STATE_COMPLETED")
    expect(answered["result"].task.artifacts[0].parts[0].text).toContain("You chose: staging.")
  })

  it("a message to an ended task is UnsupportedOperation; a contextId that is not the task's is invalid params", async () => {
    const ended = (await send(alice, "quick", { contextId: "ctx-ended" }))["result"].task
    expect(ended.status.state).toBe("TASK_STATE_COMPLETED")
    expect((await send(alice, "more", { taskId: ended.id }))["error"].code).toBe(-32004)
    expect((await send(alice, "more", { taskId: ended.id, contextId: "ctx-other" }))["error"].code).toBe(-32602)
  })

  it("a message to a working task steers it", async () => {
    const working = (await send(alice, "[sim:slow=3s] steer me", {}, { returnImmediately: true }))["result"].task
    await until(() => rpc(alice, "GetTask", { id: working.id }), (a) => a["result"]?.status.state === "TASK_STATE_WORKING")
    const steered = await send(alice, "also check the tests", { taskId: working.id })
    expect(steered["result"].task.status.state).toBe("TASK_STATE_COMPLETED")
    expect(steered["result"].task.artifacts[0].parts.map((p: Json) => p.text).join("")).toContain("Steered: also check the tests")
  })

  it("CancelTask stops a working task (CANCELED once it ends)", async () => {
    const started = (await send(alice, "[sim:slow=20s] long", {}, { returnImmediately: true }))["result"].task
    expect(["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"]).toContain(started.status.state)
    const cancelled = await rpc(alice, "CancelTask", { id: started.id })
    expect(cancelled["result"].id).toBe(started.id)
    const ended = await until(() => rpc(alice, "GetTask", { id: started.id }), (a) => a["result"]?.status.state !== "TASK_STATE_WORKING")
    expect(ended["result"].status.state).toBe("TASK_STATE_CANCELED")
  })

  it("a failed run is FAILED with the error as its status message", async () => {
    const task = (await send(alice, "[sim:fail=boom] go"))["result"].task
    expect(task.status.state).toBe("TASK_STATE_FAILED")
    expect(task.status.message.parts[0].text).toContain("boom")
  })

  it("another client's task is task not found, exactly as a made-up id", async () => {
    const mine = (await send(alice, "private", {}, { returnImmediately: true }))["result"].task
    const theirs = await rpc(bob, "GetTask", { id: mine.id })
    const madeUp = await rpc(bob, "GetTask", { id: "run_00000000000000000000000000000000" })
    expect(theirs["error"].code).toBe(-32001)
    expect(madeUp["error"].code).toBe(-32001)
    expect((await rpc(bob, "CancelTask", { id: mine.id }))["error"].code).toBe(-32001)
    expect((await send(bob, "hijack", { taskId: mine.id }))["error"].code).toBe(-32001)
  })

  it("ListTasks: the caller's tasks only, newest first, cursor-paged", async () => {
    await send(bob, "one", { contextId: "bob-ctx" })
    await send(bob, "two", { contextId: "bob-ctx" })
    await send(bob, "three", { contextId: "bob-ctx" })
    const first = (await rpc(bob, "ListTasks", { pageSize: 2, contextId: "bob-ctx" }))["result"]
    expect(first.tasks).toHaveLength(2)
    expect(first.totalSize).toBe(3)
    expect(first.nextPageToken).not.toBe("")
    const second = (await rpc(bob, "ListTasks", { pageSize: 2, contextId: "bob-ctx", pageToken: first.nextPageToken }))["result"]
    expect(second.tasks).toHaveLength(1)
    expect(second.nextPageToken).toBe("")
    const ids = [...first.tasks, ...second.tasks].map((t: Json) => t.id)
    expect(new Set(ids).size).toBe(3)
    const aliceIds = (await rpc(alice, "ListTasks", { pageSize: 100 }))["result"].tasks.map((t: Json) => t.id)
    for (const id of ids) expect(aliceIds).not.toContain(id)
    expect((await rpc(bob, "ListTasks", { pageToken: "bogus" }))["error"].code).toBe(-32602)
  })

  it("ListTasks pages past 200 tasks with the ledger's cursor; status filters; another client's cursor is refused", async () => {
    const many = await daemon.addClient("many", ["agents", "a2a"])
    // 210 quick tasks, 20 at a time (the per-client cap here; Hermes takes up to 40 at once), each to completion.
    for (let i = 0; i < 210; i += 20) {
      await Promise.all(Array.from({ length: Math.min(20, 210 - i) }, (_, k) => send(many, `quick ${i + k}`)))
    }
    const seen: Array<string> = []
    let token = ""
    const totals = new Set<number>()
    for (let page = 0; page < 10; page++) {
      const r = (await rpc(many, "ListTasks", { pageSize: 100, pageToken: token }))["result"]
      seen.push(...r.tasks.map((t: Json) => t.id as string))
      totals.add(r.totalSize)
      token = r.nextPageToken ?? ""
      if (token === "") break
    }
    expect(seen).toHaveLength(210)
    expect(new Set(seen).size).toBe(210)
    expect([...totals]).toEqual([210])
    const done = (await rpc(many, "ListTasks", { pageSize: 5, status: "TASK_STATE_COMPLETED" }))["result"]
    expect(done.totalSize).toBe(210)
    expect(done.tasks.map((t: Json) => t.id)).toEqual(seen.slice(0, 5))
    expect((await rpc(many, "ListTasks", { pageSize: 5, status: "TASK_STATE_WORKING" }))["result"].totalSize).toBe(0)
    // A cursor naming another client's task is not one this server gave the caller.
    const bobs = (await rpc(bob, "ListTasks", { pageSize: 1 }))["result"].tasks[0].id as string
    const foreign = Buffer.from(bobs, "utf8").toString("base64url")
    expect((await rpc(many, "ListTasks", { pageSize: 5, pageToken: foreign }))["error"].code).toBe(-32602)
  }, 120_000)

  it("bad input gets the spec's errors and records nothing", async () => {
    const before = await runsOf(alice)
    const raw = (body: string) =>
      fetch(`${daemon.url}/a2a`, { method: "POST", headers: { authorization: `Bearer ${alice}` }, body }).then((r) => r.json() as Promise<Json>)
    expect((await raw("{not json"))["error"].code).toBe(-32700)
    expect((await raw(JSON.stringify({ jsonrpc: "1.0", id: 1, method: "SendMessage" })))["error"].code).toBe(-32600)
    expect((await raw("[]"))["error"].code).toBe(-32600)
    expect((await rpc(alice, "NoSuchMethod", {}))["error"].code).toBe(-32601)
    const file = await rpc(alice, "SendMessage", { message: { ...msg("x"), parts: [{ url: "https://example.com/f.pdf", mediaType: "application/pdf" }] } })
    expect(file["error"].code).toBe(-32005)
    const big = await send(alice, "x".repeat(300 * 1024))
    expect(big["error"].code).toBe(-32602)
    expect((await rpc(alice, "SendMessage", { message: { ...msg(""), parts: [] } }))["error"].code).toBe(-32602)
    const streamedFile = await rpc(alice, "SendStreamingMessage", { message: { ...msg("x"), parts: [{ url: "https://example.com/f.pdf", mediaType: "application/pdf" }] } })
    expect(streamedFile["error"].code).toBe(-32005)
    expect((await rpc(alice, "SendStreamingMessage", { message: { ...msg(""), parts: [] } }))["error"].code).toBe(-32602)
    expect((await rpc(alice, "CreateTaskPushNotificationConfig", { taskId: "run_x", url: "http://127.0.0.1:1/" }))["error"].code).toBe(-32003)
    expect(await runsOf(alice)).toBe(before)
  })
})

describe("a2a.enabled: false", () => {
  it("the card and /a2a answer 404", async () => {
    const off = await startDaemon(testConfig({ hermes: { url: sim.url, key: sim.profile("default").key }, a2a: { enabled: false } }, tempDir()))
    try {
      const key = await off.addClient("carol", ["agents", "a2a"])
      expect((await fetch(`${off.url}/.well-known/agent-card.json`)).status).toBe(404)
      expect((await fetch(`${off.url}/a2a`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: "{}" })).status).toBe(404)
    } finally {
      await off.close()
    }
  }, 60_000)
})

describe("docs/REFERENCE.md's A2A method table", () => {
  // Nothing else ties the table to what the endpoint serves: each method it names must be one the
  // daemon dispatches (any answer but "method not found", -32601), so a method renamed or dropped
  // in the SDK, or a typo in the table, fails here.
  const reference = fs.readFileSync(new URL("../../docs/REFERENCE.md", import.meta.url), "utf8")
  const section = reference.slice(reference.indexOf("## The A2A face"))
  const table = section.slice(section.indexOf("| method | over | notes |"))
  const rows = table.split("\n").slice(2).filter((line) => line.startsWith("| "))
  const methods = [...new Set(rows.flatMap((row) => [...(row.split(" | ")[0] ?? "").matchAll(/`([A-Z][A-Za-z]+)`/g)].map((m) => m[1]!)))]
  const answerOf = async (method: string): Promise<string> => {
    const res = await fetch(`${daemon.url}/a2a`, {
      method: "POST",
      headers: { authorization: `Bearer ${alice}`, "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: next++, method, params: {} })
    })
    return res.text()
  }

  it("names every method of the A2A 1.0 JSON-RPC binding the bridge serves", () => {
    expect(methods).toEqual(expect.arrayContaining([
      "SendMessage", "SendStreamingMessage", "GetTask", "ListTasks", "CancelTask", "SubscribeToTask",
      "CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig", "ListTaskPushNotificationConfigs",
      "DeleteTaskPushNotificationConfig", "GetExtendedAgentCard"
    ]))
  })

  it("every method it names is dispatched by the endpoint; a made-up one is -32601", async () => {
    expect(await answerOf("TeleportTask")).toContain("-32601")
    const unknown: Array<string> = []
    for (const method of methods) if ((await answerOf(method)).includes("-32601")) unknown.push(method)
    expect(unknown).toEqual([])
  })
})
