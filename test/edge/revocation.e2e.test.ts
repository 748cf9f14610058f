/**
 * Revoking or rotating a key ends what that key holds open, within a second, on both MCP servers
 * and in both protocol eras: an open `agent_run_wait` answers `auth.forbidden` (the run itself goes
 * on), and a 2025-era session's GET stream ends. A revoke from another process (the CLI writes
 * the database over its own connection) is simulated with a second connection to the same database
 * (the SQLite file, or on PostgreSQL the daemon's database: `support/otherConnection.ts`).
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectMcp, errorTextOf, type McpEra, startDaemon, type TestDaemon, testConfig } from "../support/daemon.ts"
import { mcpHeaders } from "../support/mcpWire.ts"
import { fromAnotherConnection } from "../support/otherConnection.ts"

type Json = Record<string, any>
const structured = (r: object): Json => (r as { structuredContent: Json }).structuredContent

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
    const waiting = client.callTool({ name: "agent_run_wait", arguments: { run_id: started["run_id"], timeout_s: 20 } })
    // The wait is open before the key goes.
    await new Promise((r) => setTimeout(r, 300))
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
})
