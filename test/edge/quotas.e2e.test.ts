/**
 * Per-client quotas (issue 37 item 9), through the whole daemon with small `limits.*`: one client
 * cannot take the daemon's memory or disk. The N+1th memory note (by count, and by bytes) is refused
 * with `bridge.quota_exceeded` and nothing is written; the N+1th open event stream of one client (A2A
 * SendStreamingMessage / SubscribeToTask, a 2025 MCP session's GET stream, an MCP Tasks listen, all
 * counted together) is refused while another client still opens one, and closing a stream frees its
 * slot; the N+1th push config of one client is refused while another client still stores one.
 */
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { ClientQuotas } from "../../src/services/quotas/ClientQuotas.ts"
import { openSession } from "../reliability/support/mcpClient.ts"
import { startDaemon, type TestDaemon, tempDir, testConfig } from "../support/daemon.ts"
import { MCP_PROTOCOL, mcpHeaders, modernRequest } from "../support/mcpWire.ts"
import { until } from "../support/poll.ts"

type Json = Record<string, any>
const NOTES = 5
const NOTE_BYTES = 1024
const BYTES = 3 * NOTE_BYTES + 200
const STREAMS = 3
const PUSH = 3
const CALL_MS = 20_000
const TASKS = "io.modelcontextprotocol/tasks"

let sim: SimulatorAsync
let daemon: TestDaemon
const keys: Record<string, string> = {}
let next = 1

const a2a = (key: string, method: string, params: Json, signal?: AbortSignal) =>
  fetch(`${daemon.url}/a2a`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: next++, method, params }),
    ...(signal === undefined ? {} : { signal })
  })
const msg = (text: string) => ({ messageId: `m-${randomBytes(6).toString("hex")}`, role: "ROLE_USER", parts: [{ text }] })

/** A stream the test holds open: its response (headers arrived) and the way to close it. */
interface Held {
  readonly res: Response
  readonly close: () => void
}
const held: Array<Held> = []
const hold = async (open: (signal: AbortSignal) => Promise<Response>): Promise<Held> => {
  const abort = new AbortController()
  const res = await open(abort.signal)
  const h = { res, close: () => abort.abort() }
  held.push(h)
  return h
}
const isStream = (res: Response) => (res.headers.get("content-type") ?? "").startsWith("text/event-stream")
const bodyOf = async (h: Held): Promise<Json> => (await h.res.json()) as Json
beforeAll(async () => {
  sim = await startSimulatorAsync({ maxConcurrentRuns: 100 })
  daemon = await startDaemon(testConfig({
    bridge: { max_concurrent_runs_per_client: 20 },
    hermes: { url: sim.url, key: sim.profile("default").key, max_concurrent_runs: 100 },
    a2a: { webhook_allow: ["127.0.0.1"] },
    limits: { memory_notes_per_client: NOTES, memory_bytes_per_client: BYTES, open_streams_per_client: STREAMS, push_configs_per_client: PUSH }
  }, tempDir()))
  for (const name of ["alice", "bob", "carol", "dave", "erin"]) keys[name] = await daemon.addClient(name, ["agents", "memory", "a2a"])
}, 60_000)
afterAll(async () => {
  for (const h of held) h.close()
  await daemon?.close()
  await sim?.close()
})

describe("memory notes", () => {
  it("the N+1th note of a client is refused with bridge.quota_exceeded and nothing is written; another client still writes", async () => {
    const alice = await openSession(daemon.url, keys["alice"]!, "memory")
    const bob = await openSession(daemon.url, keys["bob"]!, "memory")
    for (let i = 0; i < NOTES; i++) {
      const added = await alice.call("memory_add", { text: `note ${i}`, namespace: i % 2 === 0 ? "private" : "shared" }, CALL_MS)
      expect(added.ok, JSON.stringify(added)).toBe(true)
    }
    const refused = await alice.call("memory_add", { text: "one too many" }, CALL_MS)
    expect(refused.ok ? "written" : refused.code).toBe("bridge.quota_exceeded")
    expect(refused.ok ? "" : refused.text).toContain("limits.memory_notes_per_client")
    const listed = await alice.call("memory_list", { namespace: "all", limit: 50 }, CALL_MS)
    expect(listed.ok && (listed.value.notes as Array<{ text: string }>).filter((n) => n.text.startsWith("note ") || n.text === "one too many").length).toBe(NOTES)
    // The same quota through the teach tool (its own server, the same store).
    const viaTeach = await openSession(daemon.url, keys["alice"]!)
    const teach = await viaTeach.call("agent_memory_add", { agent: "shared", text: "and another" }, CALL_MS)
    expect(teach.ok ? "written" : teach.code).toBe("bridge.quota_exceeded")
    expect((await bob.call("memory_add", { text: "bob's first" }, CALL_MS)).ok).toBe(true)
    // A deleted note frees its place.
    const first = (listed.ok ? (listed.value.notes as Array<{ id: string; text: string }>) : []).find((n) => n.text === "note 0")!
    expect((await alice.call("memory_delete", { id: first.id }, CALL_MS)).ok).toBe(true)
    expect((await alice.call("memory_add", { text: "in its place" }, CALL_MS)).ok).toBe(true)
    for (const s of [alice, bob, viaTeach]) await s.close()
  })

  it("a note that would take a client past its bytes is refused and nothing is written", async () => {
    const carol = await openSession(daemon.url, keys["carol"]!, "memory")
    for (let i = 0; i < 3; i++) expect((await carol.call("memory_add", { text: `${i}`.padEnd(NOTE_BYTES, "x") }, CALL_MS)).ok).toBe(true)
    const refused = await carol.call("memory_add", { text: "y".repeat(NOTE_BYTES) }, CALL_MS)
    expect(refused.ok ? "written" : refused.code).toBe("bridge.quota_exceeded")
    expect(refused.ok ? "" : refused.text).toContain("limits.memory_bytes_per_client")
    // Her own notes (the shared namespace holds the others' too).
    const listed = await carol.call("memory_list", { namespace: "private", limit: 50 }, CALL_MS)
    expect(listed.ok && (listed.value.notes as Array<unknown>).length).toBe(3)
    // What still fits is taken.
    expect((await carol.call("memory_add", { text: "small" }, CALL_MS)).ok).toBe(true)
    await carol.close()
  })
})

describe("open streams", () => {
  it("the N+1th open A2A stream of a client is refused (no run started) while another client opens one; closing a stream frees its slot", async () => {
    const streams: Array<Held> = []
    for (let i = 0; i < STREAMS; i++) {
      const h = await hold((signal) => a2a(keys["dave"]!, "SendStreamingMessage", { message: msg("[sim:slow=60s] hold") }, signal))
      expect(isStream(h.res), `stream ${i}`).toBe(true)
      streams.push(h)
    }
    const runsBefore = sim.handle.state.runs.size
    const refused = await hold((signal) => a2a(keys["dave"]!, "SendStreamingMessage", { message: msg("[sim:slow=60s] one too many") }, signal))
    expect(isStream(refused.res)).toBe(false)
    const answer = await bodyOf(refused)
    expect(answer["error"]?.data?.[0]?.metadata?.bridge_code).toBe("bridge.quota_exceeded")
    expect(answer["error"]?.message).toContain("limits.open_streams_per_client")
    expect(sim.handle.state.runs.size).toBe(runsBefore)
    // SubscribeToTask counts alike.
    const task = ((await (await a2a(keys["dave"]!, "SendMessage", { message: msg("[sim:slow=60s] subscribe to me"), configuration: { returnImmediately: true } })).json()) as Json)["result"].task.id as string
    const subscribe = await hold((signal) => a2a(keys["dave"]!, "SubscribeToTask", { id: task }, signal))
    expect((await bodyOf(subscribe))["error"]?.data?.[0]?.metadata?.bridge_code).toBe("bridge.quota_exceeded")
    // Another client is not held back.
    const other = await hold((signal) => a2a(keys["erin"]!, "SubscribeToTask", { id: task }, signal))
    expect((await bodyOf(other))["error"]?.data?.[0]?.metadata?.bridge_code).toBe("bridge.run_not_found")
    const erins = await hold((signal) => a2a(keys["erin"]!, "SendStreamingMessage", { message: msg("[sim:slow=60s] erin's") }, signal))
    expect(isStream(erins.res)).toBe(true)
    erins.close()
    // Closing one of dave's frees its slot (noticed when the connection closes).
    streams[0]!.close()
    const again = await until(
      () => hold((signal) => a2a(keys["dave"]!, "SubscribeToTask", { id: task }, signal)),
      (h) => {
        if (!isStream(h.res)) h.res.body?.cancel().catch(() => undefined)
        return isStream(h.res)
      }
    )
    expect(isStream(again.res)).toBe(true)
  })

  it("a 2025 session's GET stream and an MCP Tasks listen share the client's quota with its A2A streams", async () => {
    // Erin's stream of the test before is given back (its connection's close is noticed).
    const erinHolds = () => daemon.use(Effect.flatMap(ClientQuotas, (q) => q.openStreams("erin")))
    expect(await until(erinHolds, (n) => n === 0)).toBe(0)
    // Erin holds STREAMS - 1 A2A streams, then one GET stream: full.
    const url = `${daemon.url}/mcp/agents/mcp`
    for (let i = 0; i < STREAMS - 1; i++) {
      const h = await hold((signal) => a2a(keys["erin"]!, "SendStreamingMessage", { message: msg("[sim:slow=60s] erin holds") }, signal))
      expect(isStream(h.res)).toBe(true)
    }
    const session = async () => {
      const init = await fetch(url, {
        method: "POST",
        headers: mcpHeaders(keys["erin"]!, undefined),
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: MCP_PROTOCOL, capabilities: {}, clientInfo: { name: "quota", version: "0" } } })
      })
      await init.text()
      const sid = init.headers.get("mcp-session-id")!
      await fetch(url, { method: "POST", headers: mcpHeaders(keys["erin"]!, sid), body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) }).then((r) => r.text())
      return sid
    }
    const get = (sid: string) => hold((signal) => fetch(url, { method: "GET", headers: { ...mcpHeaders(keys["erin"]!, sid), accept: "text/event-stream" }, signal }))
    const first = await get(await session())
    expect(isStream(first.res)).toBe(true)
    const second = await get(await session())
    expect(second.res.status).toBe(429)
    expect(((await bodyOf(second))["error"] as Json)["code"]).toBe("bridge.quota_exceeded")
    // A Tasks listen (2026-07-28) is refused alike.
    const listenRequest = modernRequest(keys["erin"]!, 9, "subscriptions/listen", {
      notifications: { taskIds: ["run_x"] },
      _meta: { "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } } }
    })
    const listen = await hold((signal) => fetch(url, { ...listenRequest, signal }))
    expect(listen.res.status).toBe(429)
    expect(((await bodyOf(listen))["error"] as Json)["code"]).toBe("bridge.quota_exceeded")
    // Closing the GET stream frees a slot, which the listen then takes.
    first.close()
    const listened = await until(
      () => hold((signal) => fetch(url, { ...listenRequest, signal })),
      (h) => {
        if (!isStream(h.res)) h.res.body?.cancel().catch(() => undefined)
        return isStream(h.res)
      }
    )
    expect(isStream(listened.res)).toBe(true)
    expect(await erinHolds()).toBe(STREAMS)
  })
})

describe("push configs", () => {
  it("the N+1th push config of a client is refused with bridge.quota_exceeded; another client still stores one", async () => {
    const rpc = async (key: string, method: string, params: Json) => (await (await a2a(key, method, params)).json()) as Json
    const taskOf = async (key: string) =>
      (await rpc(key, "SendMessage", { message: msg("[sim:slow=60s] push"), configuration: { returnImmediately: true } }))["result"].task.id as string
    const create = (key: string, taskId: string, id: string) =>
      rpc(key, "CreateTaskPushNotificationConfig", { taskId, id, url: "http://127.0.0.1:9/hook" })
    const tasks = [await taskOf(keys["bob"]!), await taskOf(keys["bob"]!)]
    for (let i = 0; i < PUSH; i++) {
      const made = await create(keys["bob"]!, tasks[i % 2]!, `pc-${i}`)
      expect(made["error"], JSON.stringify(made)).toBeUndefined()
    }
    const refused = await create(keys["bob"]!, tasks[1]!, "pc-over")
    expect(refused["error"]?.data?.[0]?.metadata?.bridge_code).toBe("bridge.quota_exceeded")
    expect(refused["error"]?.message).toContain("limits.push_configs_per_client")
    // Nothing stored; replacing one already stored is no new config.
    const listed = await rpc(keys["bob"]!, "ListTaskPushNotificationConfigs", { taskId: tasks[1]! })
    expect((listed["result"].configs as Array<{ id: string }>).map((c) => c.id)).not.toContain("pc-over")
    expect((await create(keys["bob"]!, tasks[0]!, "pc-0"))["error"]).toBeUndefined()
    const carols = await create(keys["carol"]!, await taskOf(keys["carol"]!), "pc-carol")
    expect(carols["error"]).toBeUndefined()
    // A message that carries a push config bob has no room for starts no task.
    const runsBefore = sim.handle.state.runs.size
    const inline = await rpc(keys["bob"]!, "SendMessage", {
      message: msg("[sim:slow=60s] with push"),
      configuration: { returnImmediately: true, taskPushNotificationConfig: { url: "http://127.0.0.1:9/hook" } }
    })
    expect(inline["error"]?.data?.[0]?.metadata?.bridge_code).toBe("bridge.quota_exceeded")
    expect(sim.handle.state.runs.size).toBe(runsBefore)
    for (const t of tasks) await rpc(keys["bob"]!, "CancelTask", { id: t })
  })
})
