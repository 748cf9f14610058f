/**
 * McpSessions, driven with web Requests as the edge hands them over (after host and key checks):
 * a session belongs to the client and server that opened it, DELETE ends it, and one client cannot
 * grow the sessions map without bound by initializing again and again (each session is an SDK
 * server and transport kept for 30 idle minutes): past its cap, its least recently used session is
 * closed, and nobody else's.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { makeCatalog } from "../../src/edge/mcp/catalog/clientCatalog.ts"
import type { ServerKind } from "../../src/edge/mcp/catalog/listing.ts"
import { MAX_SESSIONS_PER_CLIENT, McpSessions, McpSessionsLive } from "../../src/edge/mcp/McpSessions.ts"
import { memoryTools } from "../../src/edge/mcp/memory-tools/index.ts"
import { Caller, type CallerShape } from "../../src/request/Caller.ts"
import { ClientQuotasFor } from "../../src/services/quotas/ClientQuotas.ts"
import { MCP_PROTOCOL, mcpHeaders } from "../support/mcpWire.ts"

const sessionsLayer = McpSessionsLive<never>(makeCatalog({}, memoryTools))

const send = (kind: ServerKind, caller: CallerShape, method: string, sessionId: string | undefined, body?: unknown) =>
  Effect.flatMap(McpSessions, (sessions) =>
    sessions.handle(
      kind,
      new Request(`http://127.0.0.1/mcp/${kind}/mcp`, {
        method,
        headers: mcpHeaders("unused-here", sessionId),
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      }),
      { caller, token: "unused-here" }
    )
  )

const initialize = (caller: CallerShape, kind: ServerKind = "agents") =>
  Effect.gen(function* () {
    const res = yield* send(kind, caller, "POST", undefined, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: MCP_PROTOCOL, capabilities: {}, clientInfo: { name: "test", version: "0" } }
    })
    const id = res.headers.get("mcp-session-id")
    yield* Effect.promise(() => res.text())
    if (id === null) throw new Error(`initialize answered ${res.status} without a session`)
    return id
  })

/** The HTTP status of a tools/list on the session. */
const listStatus = (caller: CallerShape, id: string, kind: ServerKind = "agents") =>
  Effect.flatMap(send(kind, caller, "POST", id, { jsonrpc: "2.0", id: 2, method: "tools/list" }), (res) =>
    Effect.as(Effect.promise(() => res.text()), res.status)
  )

const size = Effect.flatMap(McpSessions, (s) => s.size)

const alice = Caller.client("alice")
const bob = Caller.client("bob")

describe("MCP sessions", () => {
  it.scoped("a session answers only its own client on its own server; DELETE ends it", () =>
    Effect.gen(function* () {
      const id = yield* initialize(alice)
      expect(yield* listStatus(alice, id)).toBe(200)
      expect(yield* listStatus(bob, id)).toBe(404)
      expect(yield* listStatus(alice, id, "memory")).toBe(404)
      expect(yield* size).toBe(1)
      const deleted = yield* send("agents", alice, "DELETE", id)
      expect(deleted.status).toBe(200)
      expect(yield* size).toBe(0)
      expect(yield* listStatus(alice, id)).toBe(404)
    }).pipe(Effect.provide(sessionsLayer)))

  it.scoped("a session idle for 30 minutes is closed by the sweep; one used meanwhile stays open", () =>
    Effect.gen(function* () {
      const idle = yield* initialize(alice)
      const used = yield* initialize(bob)
      yield* TestClock.adjust("20 minutes")
      expect(yield* listStatus(bob, used)).toBe(200)
      yield* TestClock.adjust("11 minutes")
      expect(yield* size).toBe(1)
      expect(yield* listStatus(alice, idle)).toBe(404)
      expect(yield* listStatus(bob, used)).toBe(200)
    }).pipe(Effect.provide(sessionsLayer)))

  it.scoped("a client past its session cap loses its least recently used session, and only its own", () =>
    Effect.gen(function* () {
      const bobs = yield* initialize(bob)
      const first = yield* initialize(alice)
      const second = yield* initialize(alice)
      for (let i = 2; i < MAX_SESSIONS_PER_CLIENT; i++) yield* initialize(alice)
      expect(yield* size).toBe(MAX_SESSIONS_PER_CLIENT + 1)
      // The first is used again, so the second is now the least recently used.
      expect(yield* listStatus(alice, first)).toBe(200)
      const newest = yield* initialize(alice)
      expect(yield* size).toBe(MAX_SESSIONS_PER_CLIENT + 1)
      expect(yield* listStatus(alice, second)).toBe(404)
      expect(yield* listStatus(alice, first)).toBe(200)
      expect(yield* listStatus(alice, newest)).toBe(200)
      expect(yield* listStatus(bob, bobs)).toBe(200)
    }).pipe(Effect.provide(sessionsLayer)))

  it.scoped("limits.mcp_sessions_per_client sets the cap", () =>
    Effect.gen(function* () {
      const first = yield* initialize(alice)
      const second = yield* initialize(alice)
      const third = yield* initialize(alice)
      expect(yield* size).toBe(2)
      expect(yield* listStatus(alice, first)).toBe(404)
      expect(yield* listStatus(alice, second)).toBe(200)
      expect(yield* listStatus(alice, third)).toBe(200)
    }).pipe(Effect.provide(sessionsLayer.pipe(Layer.provide(ClientQuotasFor({ mcp_sessions_per_client: 2 }))))))
})
