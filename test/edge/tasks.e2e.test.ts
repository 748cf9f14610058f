/**
 * The Tasks extension through the whole daemon (embedded simulator), spoken with the SDK v2
 * client's Streamable HTTP transport sending raw JSON-RPC requests (the SDK client itself refuses
 * a `resultType: "task"` answer): every status mapping, `tasks/update`, `tasks/cancel`, the
 * errors, a task read after a daemon restart, and no change for a request without the extension.
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { startDaemon, type TestDaemon, tempDir, testConfig } from "../support/daemon.ts"
import { mcpHeaders, MODERN_PROTOCOL, rpcAnswer } from "../support/mcpWire.ts"
import { until } from "../support/poll.ts"

type Json = Record<string, any>
const TASKS = "io.modelcontextprotocol/tasks"

/** One 2026-07-28 client over the SDK's transport: each request carries its envelope. */
const rawClient = async (url: string, key: string) => {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${key}` } } })
  transport.setProtocolVersion(MODERN_PROTOCOL)
  const waiting = new Map<number, (m: Json) => void>()
  transport.onmessage = (m: any) => {
    if ("id" in m && waiting.has(m.id)) waiting.get(m.id)!(m)
  }
  await transport.start()
  let next = 1
  const request = async (method: string, params: Json = {}, declare = true): Promise<Json> => {
    const id = next++
    const capabilities = declare ? { extensions: { [TASKS]: {} } } : {}
    const meta = {
      "io.modelcontextprotocol/protocolVersion": MODERN_PROTOCOL,
      "io.modelcontextprotocol/clientInfo": { name: "tasks-test", version: "0" },
      "io.modelcontextprotocol/clientCapabilities": capabilities
    }
    const answered = new Promise<Json>((resolve) => waiting.set(id, resolve))
    try {
      await transport.send({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } } as any)
    } catch (e) {
      // An HTTP error status (-32021 is sent with 400) is thrown by the transport, with the body.
      const body = (e as { data?: { body?: string }; message: string }).data?.body
      waiting.delete(id)
      return body === undefined ? { thrown: (e as Error).message } : JSON.parse(body)
    }
    const m = await Promise.race([answered, new Promise<Json>((_, reject) => setTimeout(() => reject(new Error(`no answer to ${method}`)), 30_000))])
    waiting.delete(id)
    return m
  }
  return { request, close: () => transport.close() }
}
type Raw = Awaited<ReturnType<typeof rawClient>>

describe("MCP Tasks: a run as a task", () => {
  let sim: SimulatorAsync
  let dir: string
  let daemon: TestDaemon
  let carolKey: string
  let carol: Raw
  let bob: Raw
  let compact: Raw
  // Hermes outlives the daemon (as it does in production), so a run goes on across a restart.
  const config = () => testConfig({ hermes: { url: sim.url, key: sim.profile("default").key }, clients: { dave: { catalog: "compact" } } }, dir)
  const url = () => `${daemon.url}/mcp/agents/mcp`

  beforeAll(async () => {
    sim = await startSimulatorAsync({})
    dir = tempDir()
    daemon = await startDaemon(config())
    carolKey = await daemon.addClient("carol")
    carol = await rawClient(url(), carolKey)
    bob = await rawClient(url(), await daemon.addClient("bob"))
    compact = await rawClient(url(), await daemon.addClient("dave"))
  })
  afterAll(async () => {
    await carol?.close()
    await bob?.close()
    await compact?.close()
    await daemon?.close()
    await sim?.close()
  })

  const start = (c: Raw, input: string, extra: Json = {}) =>
    c.request("tools/call", { name: "agent_run", arguments: { agent: "hermes", input, ...extra } })
  const get = (c: Raw, taskId: string) => c.request("tasks/get", { taskId })
  const settled = (c: Raw, taskId: string) => until(() => get(c, taskId), (m) => ["completed", "cancelled", "failed"].includes(m["result"]?.status))

  it("server/discover advertises the extension; a 2025 initialize does not", async () => {
    const discovered = await carol.request("server/discover")
    expect(discovered["result"].capabilities.extensions[TASKS]).toEqual({})
    const init = await fetch(url(), {
      method: "POST",
      headers: mcpHeaders(carolKey, undefined),
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: { extensions: { [TASKS]: {} } }, clientInfo: { name: "old", version: "0" } } })
    })
    const sid = init.headers.get("mcp-session-id")!
    expect((await rpcAnswer(init))["result"].capabilities.extensions?.[TASKS]).toBeUndefined()
    // The 2025 era has no task methods here: the answer it always had.
    const headers = { ...mcpHeaders(carolKey, sid), "mcp-protocol-version": "2025-11-25" }
    const got = await rpcAnswer(await fetch(url(), { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tasks/get", params: { taskId: "run_x" } }) }))
    expect(got["error"].code).toBe(-32601)
    await fetch(url(), { method: "DELETE", headers }).then((r) => r.text())
  })

  it("without the extension, agent_run answers the run view as before", async () => {
    const plain = await carol.request("tools/call", { name: "agent_run", arguments: { agent: "hermes", input: "plain" } }, false)
    expect(plain["result"].resultType).toBe("complete")
    expect(plain["result"].structuredContent.run_id).toMatch(/^run_[0-9a-f]{32}$/)
    expect(plain["result"].taskId).toBeUndefined()
  })

  it("agent_run answers a CreateTaskResult, durable at once, polled to completed with agent_run's final answer", async () => {
    const created = (await start(carol, "[sim:slow=600ms] summarize"))["result"]
    expect(created).toMatchObject({ resultType: "task", status: "working", ttlMs: 7 * 86_400_000, pollIntervalMs: 1000 })
    expect(created.taskId).toMatch(/^run_[0-9a-f]{32}$/)
    expect(Date.parse(created.createdAt)).not.toBeNaN()
    expect(Date.parse(created.lastUpdatedAt)).not.toBeNaN()
    expect(typeof created.statusMessage).toBe("string")
    // Recorded before it was sent: the first poll resolves.
    const first = (await get(carol, created.taskId))["result"]
    expect(first.resultType).toBe("complete")
    expect(first.taskId).toBe(created.taskId)
    const done = (await settled(carol, created.taskId))["result"]
    expect(done.status).toBe("completed")
    expect(done.statusMessage).toBe("The run completed.")
    // The run view agent_run answers (what agent_run_wait ends with, without its events tail).
    const status = (await carol.request("tools/call", { name: "agent_run_status", arguments: { run_id: created.taskId } }, false))["result"]
    expect(done.result.structuredContent).toEqual(status.structuredContent)
    expect(done.result.content).toEqual(status.content)
    const wait = (await carol.request("tools/call", { name: "agent_run_wait", arguments: { run_id: created.taskId, timeout_s: 0 } }, false))["result"]
    const { events_tail: _tail, timed_out: _timedOut, ...waited } = wait.structuredContent
    expect(done.result.structuredContent).toEqual(waited)
    expect(done.result.structuredContent.output).toMatch(/summarize/)
    expect(done.ttlMs).toBe(Date.parse(done.lastUpdatedAt) - Date.parse(done.createdAt) + 7 * 86_400_000)
  })

  it("wait_s keeps agent_run's rules: checked, then waited on before the task is answered", async () => {
    const refused = (await start(carol, "x", { wait_s: 601 }))["result"]
    expect(refused.resultType).toBe("complete")
    expect(refused.isError).toBe(true)
    expect(refused.content[0].text).toMatch(/bridge\.invalid_input/)
    const waited = (await start(carol, "[sim:slow=200ms] quick", { wait_s: 30 }))["result"]
    expect(waited.resultType).toBe("task")
    expect(waited.status).toBe("completed")
  })

  it("idempotency keys work as for agent_run: the same key is the same task", async () => {
    const a = (await start(carol, "[sim:slow=300ms] once", { idempotency_key: "task-key-1" }))["result"]
    const b = (await start(carol, "[sim:slow=300ms] once", { idempotency_key: "task-key-1" }))["result"]
    expect(a.resultType).toBe("task")
    expect(a.taskId).toMatch(/^run_[0-9a-f]{32}$/)
    expect(b.resultType).toBe("task")
    expect(b.taskId).toBe(a.taskId)
    // The same run the tool answers without tasks: the key is the run's, whichever way it was asked.
    const plain = (await carol.request("tools/call", { name: "agent_run", arguments: { agent: "hermes", input: "[sim:slow=300ms] once", idempotency_key: "task-key-1" } }, false))["result"]
    expect(plain.structuredContent.run_id).toBe(a.taskId)
    const conflict = (await start(carol, "something else", { idempotency_key: "task-key-1" }))["result"]
    expect(conflict.isError).toBe(true)
    expect(conflict.resultType).toBe("complete")
    expect(conflict.content[0].text).toMatch(/bridge\.idempotency_conflict/)
  })

  it("a compact catalog's tool_call to agent_run is a task too", async () => {
    const created = (await compact.request("tools/call", { name: "tool_call", arguments: { calls: [{ name: "agent_run", arguments: { agent: "hermes", input: "via the compact catalog" } }] } }))["result"]
    expect(created.resultType).toBe("task")
    expect((await settled(compact, created.taskId))["result"].result.structuredContent.client).toBe("dave")
    // Two calls in one batch are not one task: the ordinary answer.
    const batch = (await compact.request("tools/call", { name: "tool_call", arguments: { calls: [{ name: "agents_list" }, { name: "agent_run", arguments: { agent: "hermes", input: "b" } }] } }))["result"]
    expect(batch.resultType).toBe("complete")
    expect(batch.structuredContent.results).toHaveLength(2)
  })

  it("a clarification is input_required; tasks/update answers it with agent_run_answer's rules", async () => {
    const id = (await start(carol, "[sim:clarify] deploy it"))["result"].taskId
    const asked = (await until(() => get(carol, id), (m) => m["result"].status === "input_required"))["result"]
    const [key, request] = Object.entries(asked.inputRequests as Json)[0]!
    expect(request.method).toBe("elicitation/create")
    expect(request.params.message).toMatch(/Which environment/)
    expect(request.params.requestedSchema.properties.answer.enum).toEqual(["staging", "production"])
    // A key that is not outstanding is ignored, and so is a declined form.
    const ignored = await carol.request("tasks/update", { taskId: id, inputResponses: { other: { action: "accept", content: { answer: "x" } } } })
    expect(ignored["result"].resultType).toBe("complete")
    expect((await carol.request("tasks/update", { taskId: id, inputResponses: { [key]: { action: "decline" } } }))["result"]).toBeDefined()
    expect((await get(carol, id))["result"].status).toBe("input_required")
    // No inputResponses at all is invalid params.
    expect((await carol.request("tasks/update", { taskId: id }))["error"]).toEqual({ code: -32602, message: "tasks/update needs inputResponses" })
    // An accepted form without an answer is invalid params.
    const bad = await carol.request("tasks/update", { taskId: id, inputResponses: { [key]: { action: "accept", content: { answer: 3 } } } })
    expect(bad["error"].code).toBe(-32602)
    expect(bad["error"].message).toMatch(/bridge\.invalid_input/)
    expect((await carol.request("tasks/update", { taskId: id, inputResponses: { [key]: { action: "accept", content: { answer: "staging" } } } }))["result"]).toBeDefined()
    const done = (await settled(carol, id))["result"]
    expect(done.status).toBe("completed")
    expect(done.result.structuredContent.output).toMatch(/You chose: staging/)
  })

  it("a run waiting for the operator's approval stays working and says so; tasks/cancel stops it", async () => {
    const id = (await start(carol, "[sim:approval] clean up"))["result"].taskId
    const waiting = (await until(() => get(carol, id), (m) => /approval/.test(m["result"].statusMessage)))["result"]
    expect(waiting.status).toBe("working")
    expect(waiting.statusMessage).toMatch(/rm -rf \.\/build/)
    expect((await carol.request("tasks/cancel", { taskId: id }))["result"].resultType).toBe("complete")
    const ended = (await settled(carol, id))["result"]
    expect(ended.status).toBe("cancelled")
    expect(ended.result).toBeUndefined()
    // Cancelling a finished task leaves it as it is (agent_run_stop's rule).
    expect((await carol.request("tasks/cancel", { taskId: id }))["result"]).toBeDefined()
    expect((await get(carol, id))["result"].status).toBe("cancelled")
  })

  it("a failed run is completed, its result the run view with status failed, as agent_run_wait answers it", async () => {
    const id = (await start(carol, "[sim:fail=the provider gave up] try"))["result"].taskId
    const done = (await settled(carol, id))["result"]
    expect(done.status).toBe("completed")
    expect(done.statusMessage).toMatch(/^The run failed: .*the provider gave up/)
    expect(done.result.isError).toBeUndefined()
    expect(done.result.structuredContent.status).toBe("failed")
  })

  it("unknown ids and another client's are the same -32602; a request without the extension is -32021", async () => {
    const mine = (await start(carol, "private"))["result"].taskId
    const unknown = "run_" + "0".repeat(32)
    for (const [method, params] of [["tasks/get", {}], ["tasks/cancel", {}], ["tasks/update", { inputResponses: {} }]] as const) {
      const theirs = await bob.request(method, { taskId: mine, ...params })
      const none = await bob.request(method, { taskId: unknown, ...params })
      expect(theirs["error"].code).toBe(-32602)
      expect(theirs["error"]).toEqual(none["error"])
      expect(theirs["error"].message).toMatch(/Task not found/)
      const undeclared = await carol.request(method, { taskId: mine, ...params }, false)
      expect(undeclared["error"]).toEqual({
        code: -32021, message: "Missing required client capability", data: { requiredCapabilities: { extensions: { [TASKS]: {} } } }
      })
    }
    // Bob's refusals changed nothing: Carol's task goes on.
    expect((await settled(carol, mine))["result"].status).toBe("completed")
  })

  /** A raw `subscriptions/listen` POST; its SSE messages as they arrive. */
  const listen = async (key: string, taskIds: ReadonlyArray<string>, declare = true) => {
    const meta = {
      "io.modelcontextprotocol/protocolVersion": MODERN_PROTOCOL,
      "io.modelcontextprotocol/clientInfo": { name: "tasks-test", version: "0" },
      "io.modelcontextprotocol/clientCapabilities": declare ? { extensions: { [TASKS]: {} } } : {}
    }
    const controller = new AbortController()
    const res = await fetch(url(), {
      method: "POST",
      signal: controller.signal,
      headers: { ...mcpHeaders(key, undefined), "mcp-protocol-version": MODERN_PROTOCOL, "mcp-method": "subscriptions/listen" },
      body: JSON.stringify({ jsonrpc: "2.0", id: "listen-1", method: "subscriptions/listen", params: { notifications: { taskIds }, _meta: meta } })
    })
    const messages: Array<Json> = []
    if ((res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
      void (async () => {
        const reader = res.body!.getReader()
        let buffered = ""
        for (;;) {
          const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }))
          if (done) return
          buffered += new TextDecoder().decode(value)
          const frames = buffered.split("\n\n")
          buffered = frames.pop()!
          for (const f of frames) for (const line of f.split("\n")) if (line.startsWith("data: ")) messages.push(JSON.parse(line.slice(6)))
        }
      })()
    }
    return { res, messages, close: () => controller.abort() }
  }

  it("notifications/tasks on subscriptions/listen: the acknowledgement names the caller's own tasks, then each change comes", async () => {
    const mine = (await start(carol, "[sim:slow=5s] follow me"))["result"].taskId
    const theirs = (await start(bob, "not yours"))["result"].taskId
    const stream = await listen(carolKey, [mine, theirs, "run_" + "0".repeat(32)])
    try {
      expect(stream.res.status).toBe(200)
      const ack = await until(async (): Promise<Json> => ({ m: stream.messages[0] }), (a) => a["m"] !== undefined)
      expect(ack["m"]).toEqual({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { notifications: { taskIds: [mine] }, _meta: { "io.modelcontextprotocol/subscriptionId": "listen-1" } }
      })
      const last = await until(async (): Promise<Json> => ({ m: stream.messages.at(-1) }), (a) => a["m"]?.params?.status === "completed")
      expect(last["m"].method).toBe("notifications/tasks")
      // The whole task, as tasks/get answers it.
      const { resultType: _rt, _meta: _m, ...polled } = (await get(carol, mine))["result"]
      const { _meta: _n, ...pushed } = last["m"].params
      expect(pushed).toEqual(polled)
      expect(stream.messages.every((m) => m.method !== "notifications/tasks" || m.params.taskId === mine)).toBe(true)
    } finally {
      stream.close()
    }
    const undeclared = await listen(carolKey, [mine], false)
    expect(undeclared.res.status).toBe(400)
    expect((await undeclared.res.json()).error.code).toBe(-32021)
  })

  it("a task is read after a daemon restart, and finishes", async () => {
    const id = (await start(carol, "[sim:deltas=30,slow=1500ms] long job"))["result"].taskId
    await until(() => get(carol, id), (m) => m["result"].statusMessage.includes("events so far") && !/\(1 events/.test(m["result"].statusMessage))
    await carol.close()
    await bob.close()
    await compact.close()
    await daemon.close()
    daemon = await startDaemon(config())
    carol = await rawClient(url(), carolKey)
    bob = await rawClient(url(), await daemon.addClient("bob-again"))
    compact = await rawClient(url(), await daemon.addClient("dave-again"))
    const after = (await get(carol, id))["result"]
    expect(after.taskId).toBe(id)
    const done = (await settled(carol, id))["result"]
    expect(done.status).toBe("completed")
    expect(done.result.structuredContent.output).toMatch(/long job/)
  })
})
