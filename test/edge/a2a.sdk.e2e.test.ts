/**
 * The A2A face through a real peer, the `@a2a-js/sdk` 1.3 client (card resolution, its JSON-RPC
 * transport, its decoding), and the other face: a task started over A2A is a run the MCP tools
 * read and stop, and an idempotency key used over MCP is the same message id over A2A.
 */
import { Role, TaskState, type Message } from "@a2a-js/sdk"
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from "@a2a-js/sdk/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { connectMcp, startDaemon, type TestDaemon, tempDir, testConfig } from "../support/daemon.ts"
import { makeClient } from "../inbox/fetchClient.ts"

let sim: SimulatorAsync
let daemon: TestDaemon
let key: string

const message = (text: string, extra: Partial<Message> = {}): Message => ({
  messageId: `sdk-${Math.random().toString(16).slice(2)}`,
  contextId: "",
  taskId: "",
  role: Role.ROLE_USER,
  parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
  ...extra
})

const sdkClient = () => {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers)
    headers.set("authorization", `Bearer ${key}`)
    return fetch(input, { ...init, headers })
  }
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })] }))
  return factory.createFromUrl(daemon.url)
}

beforeAll(async () => {
  sim = await startSimulatorAsync({})
  daemon = await startDaemon(testConfig({ hermes: { url: sim.url, key: sim.profile("default").key } }, tempDir()))
  key = await daemon.addClient("peer", ["agents", "a2a"])
}, 60_000)
afterAll(async () => {
  await daemon?.close()
  await sim?.close()
})

describe("the @a2a-js/sdk client", () => {
  it("fetches the card, sends a message to completion, gets and lists the task", async () => {
    const client = await sdkClient()
    const result = await client.sendMessage({ tenant: "", message: message("summarise the repo"), configuration: undefined, metadata: undefined })
    expect("id" in result).toBe(true)
    const task = result as import("@a2a-js/sdk").Task
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
    const text = task.artifacts[0]?.parts[0]?.content
    expect(text?.$case === "text" && text.value).toContain('I looked into "summarise the repo"')
    const got = await client.getTask({ tenant: "", id: task.id, historyLength: 1 })
    expect(got.history).toHaveLength(1)
    const listed = await client.listTasks({ tenant: "", contextId: "", status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 10, pageToken: "", historyLength: 0, statusTimestampAfter: undefined, includeArtifacts: false })
    expect(listed.tasks.map((t) => t.id)).toContain(task.id)
  })

  it("answers an input-required task and cancels a working one", async () => {
    const client = await sdkClient()
    const asked = (await client.sendMessage({ tenant: "", message: message("[sim:clarify] deploy"), configuration: undefined, metadata: undefined })) as import("@a2a-js/sdk").Task
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED)
    const done = (await client.sendMessage({ tenant: "", message: message("production", { taskId: asked.id, contextId: asked.contextId }), configuration: undefined, metadata: undefined })) as import("@a2a-js/sdk").Task
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
    const slow = (await client.sendMessage({
      tenant: "",
      message: message("[sim:slow=20s] long"),
      configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true },
      metadata: undefined
    })) as import("@a2a-js/sdk").Task
    const cancelled = await client.cancelTask({ tenant: "", id: slow.id, metadata: undefined })
    expect(cancelled.id).toBe(slow.id)
  })
})

describe("the @a2a-js/sdk client's streams", () => {
  const outputOf = (events: ReadonlyArray<import("@a2a-js/sdk").StreamResponse>) => {
    let text = ""
    for (const e of events) {
      if (e.payload?.$case !== "artifactUpdate") continue
      const chunk = (e.payload.value.artifact?.parts ?? []).map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("")
      text = e.payload.value.append ? text + chunk : chunk
    }
    return text
  }
  const lastState = (events: ReadonlyArray<import("@a2a-js/sdk").StreamResponse>) => {
    const last = events.at(-1)?.payload
    return last?.$case === "statusUpdate" ? last.value.status?.state : undefined
  }

  it("sendMessageStream: the Task, then the output as artifact updates, then COMPLETED", async () => {
    const client = await sdkClient()
    const events: Array<import("@a2a-js/sdk").StreamResponse> = []
    for await (const e of client.sendMessageStream({ tenant: "", message: message("[sim:output=20k,deltas=10] stream it"), configuration: undefined, metadata: undefined })) {
      events.push(e)
      if (events.length > 500) break
    }
    expect(events[0]?.payload?.$case).toBe("task")
    expect(lastState(events)).toBe(TaskState.TASK_STATE_COMPLETED)
    const id = events[0]?.payload?.$case === "task" ? events[0].payload.value.id : ""
    const got = await client.getTask({ tenant: "", id, historyLength: undefined })
    expect(outputOf(events)).toBe(got.artifacts[0]?.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join(""))
  })

  it("resubscribeTask follows a running task to its end; on a finished one it is refused", async () => {
    const client = await sdkClient()
    const started = (await client.sendMessage({
      tenant: "",
      message: message("[sim:slow=2s] follow me"),
      configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true },
      metadata: undefined
    })) as import("@a2a-js/sdk").Task
    const events: Array<import("@a2a-js/sdk").StreamResponse> = []
    for await (const e of client.resubscribeTask({ tenant: "", id: started.id })) {
      events.push(e)
      if (events.length > 500) break
    }
    expect(events[0]?.payload?.$case).toBe("task")
    expect(lastState(events)).toBe(TaskState.TASK_STATE_COMPLETED)
    await expect(async () => {
      for await (const _ of client.resubscribeTask({ tenant: "", id: started.id })) break
    }).rejects.toThrow(/has ended/)
  })
})

describe("one ledger, two faces", () => {
  it("a task started over A2A is read and stopped with the MCP tools; an MCP idempotency key is the A2A messageId", async () => {
    const client = await sdkClient()
    const mcp = await connectMcp(daemon.url, key)
    try {
      const slow = (await client.sendMessage({
        tenant: "",
        message: message("[sim:slow=20s] both faces", { contextId: "shared-ctx" }),
        configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true },
        metadata: undefined
      })) as import("@a2a-js/sdk").Task
      const status = (await mcp.callTool({ name: "agent_run_status", arguments: { run_id: slow.id } })) as { structuredContent: Record<string, unknown> }
      expect(status.structuredContent["session_key"]).toBe("shared-ctx")
      const stopped = (await mcp.callTool({ name: "agent_run_stop", arguments: { run_id: slow.id } })) as { structuredContent: Record<string, unknown> }
      expect(["stopping", "cancelled"]).toContain(stopped.structuredContent["status"])

      const started = (await mcp.callTool({ name: "agent_run", arguments: { agent: "hermes", input: "keyed once", idempotency_key: "same-key", session_key: "a2a-same-key" } })) as { structuredContent: Record<string, unknown> }
      const again = (await client.sendMessage({
        tenant: "",
        message: message("keyed once", { messageId: "same-key" }),
        configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true },
        metadata: undefined
      })) as import("@a2a-js/sdk").Task
      expect(again.id).toBe(started.structuredContent["run_id"])
    } finally {
      await mcp.close()
    }
  })
})

describe("a task waiting for the operator", () => {
  it("is WORKING with the approval named, is approved in the console's inbox, and completes", async () => {
    const client = await sdkClient()
    const started = (await client.sendMessage({
      tenant: "",
      message: message("[sim:approval] tidy the workspace"),
      configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true },
      metadata: undefined
    })) as import("@a2a-js/sdk").Task
    // Bounded poll: the simulator asks for approval right after the run starts.
    let waiting: import("@a2a-js/sdk").Task | undefined
    for (let i = 0; i < 100 && waiting === undefined; i++) {
      const got = await client.getTask({ tenant: "", id: started.id, historyLength: 0 })
      const said = got.status?.message?.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("") ?? ""
      if (/approval/i.test(said)) waiting = got
      else await new Promise((r) => setTimeout(r, 100))
    }
    expect(waiting?.status?.state).toBe(TaskState.TASK_STATE_WORKING)

    const inbox = makeClient(daemon.url)
    expect((await inbox.signIn(daemon.adminKey)).status).toBe(303)
    const list = await inbox.send("GET", "/inbox")
    const row = [...list.body.matchAll(/\/inbox\/rows\/(apr_[A-Za-z0-9_]+)/g)].map((m) => m[1]!)
    const cards = await Promise.all([...new Set(row)].map(async (id) => ({ id, body: (await inbox.send("GET", `/inbox/rows/${id}`)).body })))
    const card = cards.find((c) => c.body.includes(started.id))
    expect(card).toBeDefined()
    expect((await inbox.send("POST", `/inbox/rows/${card!.id}`, { csrf: inbox.csrfOf(card!.body), decision: "once" })).status).toBe(303)

    const mcp = await connectMcp(daemon.url, key)
    try {
      const done = (await mcp.callTool({ name: "agent_run_wait", arguments: { run_id: started.id, timeout_s: 30 } })) as { structuredContent: Record<string, unknown> }
      expect(done.structuredContent["status"]).toBe("completed")
    } finally {
      await mcp.close()
    }
    const ended = await client.getTask({ tenant: "", id: started.id, historyLength: 0 })
    expect(ended.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
  })
})
