/**
 * Revoking or rotating a key ends what that key holds open, within a second, on both MCP servers
 * and in both protocol eras: an open `agent_run_wait` answers `auth.forbidden` (the run itself goes
 * on), also when the call is answered as an event stream; a 2025-era session's GET stream ends; and
 * a 2026-07-28 Tasks `subscriptions/listen` stream ends, while another client's stays open. A
 * revoke from another process (the CLI writes the database over its own connection) is simulated
 * with a second connection to the same database (the SQLite file, or on PostgreSQL the daemon's
 * database: `support/otherConnection.ts`).
 *
 * The A2A streams (SendStreamingMessage and SubscribeToTask, revoked here or by another process,
 * or rotated) are covered in `a2a.stream.e2e.test.ts`. The operator console's event stream is bound
 * to a signed-in cookie, not to a client key: signing out ends it (`test/inbox/events.test.ts`).
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectMcp, errorTextOf, type McpEra, startDaemon, type TestDaemon, testConfig } from "../support/daemon.ts"
import { mcpHeaders, MODERN_PROTOCOL, modernRequest, rpcAnswer } from "../support/mcpWire.ts"
import { fromAnotherConnection } from "../support/otherConnection.ts"
import { metricValue } from "../support/metrics.ts"
import { until } from "../support/poll.ts"

type Json = Record<string, any>
const structured = (r: object): Json => (r as { structuredContent: Json }).structuredContent
const TASKS = "io.modelcontextprotocol/tasks"

/** Reads an event-stream body as it comes: its data messages, and when it ended. */
const follow = (res: Response) => {
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/)
  const messages: Array<Json> = []
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let open = true
  const ended = (async () => {
    let buffered = ""
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true as const, value: undefined }))
      if (done) {
        open = false
        return Date.now()
      }
      buffered += decoder.decode(value, { stream: true })
      const frames = buffered.split("\n\n")
      buffered = frames.pop()!
      for (const f of frames) for (const line of f.split("\n")) if (line.startsWith("data: ")) messages.push(JSON.parse(line.slice(6)))
    }
  })()
  return { messages, ended, isOpen: () => open, cancel: () => reader.cancel().catch(() => undefined) }
}

/** Revokes `name` as `agent-bridge client revoke` does: an UPDATE from another connection (either dialect). */
const revokeFromAnotherProcess = (daemon: TestDaemon, name: string) =>
  // Times are epoch milliseconds in the database (migration 0007).
  Effect.runPromise(fromAnotherConnection(daemon.config, "UPDATE clients SET revoked_at = ? WHERE name = ?", Date.now(), name))

describe("revocation ends what is open", () => {
  let daemon: TestDaemon
  beforeAll(async () => {
    daemon = await startDaemon(testConfig())
  })
  afterAll(async () => {
    await daemon?.close()
  })

  const openWait = async (name: string, era: McpEra) => {
    const key = await daemon.addClient(name, ["agents", "memory"])
    const client = await connectMcp(daemon.url, key, "agents", era)
    const started = structured(await client.callTool({ name: "agent_run", arguments: { agent: "hermes", input: "[sim:slow=30s] keep going" } }))
    const open = await metricValue(daemon, "agent_bridge_waits_open")
    const waiting = client.callTool({ name: "agent_run_wait", arguments: { run_id: started["run_id"], timeout_s: 20 } })
    // The wait is open before the key goes (the daemon counts it), not 300 ms of hope.
    await until(() => metricValue(daemon, "agent_bridge_waits_open"), (n) => n > open, { what: "the wait opened" })
    return { key, client, waiting, runId: started["run_id"] as string }
  }

  for (const era of ["modern", "legacy"] as const) {
    it(`a revoke by another process ends an open wait with auth.forbidden within a second (${era})`, async () => {
      const name = `dave-${era}`
      const { client, waiting } = await openWait(name, era)
      const t0 = Date.now()
      await revokeFromAnotherProcess(daemon, name)
      const answer = await waiting
      const took = Date.now() - t0
      expect(errorTextOf(answer)).toMatch(/^Error executing tool agent_run_wait: auth\.forbidden: this key was revoked or rotated/)
      expect(took).toBeLessThan(1_500)
      await client.close().catch(() => undefined)
    })

    it(`a rotate in this process ends an open wait at once, and the new key works (${era})`, async () => {
      const name = `erin-${era}`
      const { client, waiting, runId } = await openWait(name, era)
      const rotated = await daemon.rotate(name)
      const answer = await waiting
      expect(errorTextOf(answer)).toMatch(/auth\.forbidden/)
      await client.close().catch(() => undefined)
      // The run went on: the new key still sees it running.
      const again = await connectMcp(daemon.url, rotated, "agents", era)
      const status = structured(await again.callTool({ name: "agent_run_status", arguments: { run_id: runId } }))
      expect(status["status"]).toBe("running")
      await again.close()
    })
  }

  it("a revoke ends a 2025-era session's GET stream on the memory server", async () => {
    const key = await daemon.addClient("frank", ["agents", "memory"])
    const url = `${daemon.url}/mcp/memory/mcp`
    const init = await fetch(url, {
      method: "POST",
      headers: mcpHeaders(key, undefined),
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "0" } } })
    })
    const sid = init.headers.get("mcp-session-id")!
    await init.text()
    const stream = await fetch(url, { method: "GET", headers: { ...mcpHeaders(key, sid), accept: "text/event-stream" } })
    expect(stream.status).toBe(200)
    const reader = stream.body!.getReader()
    const ended = (async () => {
      for (;;) {
        const { done } = await reader.read()
        if (done) return Date.now()
      }
    })()
    const t0 = Date.now()
    await revokeFromAnotherProcess(daemon, "frank")
    expect((await ended) - t0).toBeLessThan(1_500)
    const after = await fetch(url, { method: "POST", headers: mcpHeaders(key, sid), body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) })
    expect(after.status).toBe(403)
  })

  /** A 2026-07-28 `subscriptions/listen` for `taskIds`, declaring the Tasks extension. */
  const listen = (key: string, taskIds: ReadonlyArray<string>) =>
    fetch(`${daemon.url}/mcp/agents/mcp`, {
      method: "POST",
      headers: { ...mcpHeaders(key, undefined), "mcp-protocol-version": MODERN_PROTOCOL, "mcp-method": "subscriptions/listen" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "listen-1",
        method: "subscriptions/listen",
        params: {
          notifications: { taskIds },
          _meta: {
            "io.modelcontextprotocol/protocolVersion": MODERN_PROTOCOL,
            "io.modelcontextprotocol/clientInfo": { name: "revocation-test", version: "0" },
            "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } }
          }
        }
      })
    })

  /** A client with a long run, listening to it: the stream once acknowledged. */
  const listening = async (name: string) => {
    const key = await daemon.addClient(name, ["agents", "memory"])
    const client = await connectMcp(daemon.url, key, "agents", "modern")
    const runId = structured(await client.callTool({ name: "agent_run", arguments: { agent: "hermes", input: "[sim:slow=30s] keep going" } }))["run_id"] as string
    const res = await listen(key, [runId])
    expect(res.status).toBe(200)
    const stream = follow(res)
    const [ack] = await until(() => stream.messages, (m) => m.length > 0)
    expect(ack).toMatchObject({ method: "notifications/subscriptions/acknowledged", params: { notifications: { taskIds: [runId] } } })
    return { client, stream, runId }
  }

  it("a revoke by another process ends an open Tasks subscriptions/listen stream; another client's stays open", async () => {
    const revoked = await listening("gina")
    const kept = await listening("hank")
    try {
      const t0 = Date.now()
      await revokeFromAnotherProcess(daemon, "gina")
      // Bounded generously for a loaded machine; the stream's own life is unbounded (a keep-alive
      // every 15 s, no idle end), so an end here is the revocation's.
      const ended = await Promise.race([revoked.stream.ended, new Promise<undefined>((r) => setTimeout(r, 10_000))])
      expect(ended, "the revoked client's listen stream ended").toBeDefined()
      expect(ended! - t0).toBeLessThan(10_000)
      // The same mechanism would end the other client's stream too if it were a timeout: it is open.
      expect(kept.stream.isOpen()).toBe(true)
    } finally {
      await revoked.stream.cancel()
      await kept.stream.cancel()
      await revoked.client.close().catch(() => undefined)
      await kept.client.close().catch(() => undefined)
    }
  }, 30_000)

  it("a rotate in this process ends an open Tasks listen stream at once; the new key can listen again", async () => {
    const { client, stream, runId } = await listening("ivan")
    const rotated = await daemon.rotate("ivan")
    const ended = await Promise.race([stream.ended, new Promise<undefined>((r) => setTimeout(r, 10_000))])
    expect(ended, "the rotated key's listen stream ended").toBeDefined()
    await client.close().catch(() => undefined)
    const again = follow(await listen(rotated, [runId]))
    try {
      const [ack] = await until(() => again.messages, (m) => m.length > 0)
      expect(ack!["params"].notifications.taskIds).toEqual([runId])
    } finally {
      await again.cancel()
    }
  }, 30_000)

  it("a revoke ends an agent_run_wait answered as an event stream with auth.forbidden (2026-07-28, plain HTTP)", async () => {
    const key = await daemon.addClient("judy", ["agents", "memory"])
    const url = `${daemon.url}/mcp/agents/mcp`
    const started = await rpcAnswer(await fetch(url, modernRequest(key, 1, "tools/call", { name: "agent_run", arguments: { agent: "hermes", input: "[sim:slow=30s] keep going" } })))
    const runId = started["result"].structuredContent["run_id"] as string
    const open = await metricValue(daemon, "agent_bridge_waits_open")
    // A progress token makes the SDK answer the call as an event stream (its progress goes there).
    const res = await fetch(url, modernRequest(key, 2, "tools/call", { name: "agent_run_wait", arguments: { run_id: runId, timeout_s: 20 }, _meta: { progressToken: "wait-2" } }))
    const stream = follow(res)
    // The wait is open before the key goes (the daemon counts it).
    await until(() => metricValue(daemon, "agent_bridge_waits_open"), (n) => n > open, { what: "the wait opened" })
    const t0 = Date.now()
    await revokeFromAnotherProcess(daemon, "judy")
    const ended = await Promise.race([stream.ended, new Promise<undefined>((r) => setTimeout(r, 10_000))])
    expect(ended, "the call's event stream ended").toBeDefined()
    expect(ended! - t0).toBeLessThan(10_000)
    const answer = stream.messages.find((m) => m["id"] === 2)!
    expect(answer["result"].isError).toBe(true)
    expect(answer["result"].content[0].text).toMatch(/auth\.forbidden: this key was revoked or rotated/)
  }, 30_000)
})
