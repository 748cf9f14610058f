/**
 * Two `McpSessions` (two replicas' MCP edges) over one database and its session store (issue 25
 * item 1): a 2025-era session opened on A is served by B, which rebuilds it from the store
 * (sessionRestore.ts replays the stored handshake through the SDK's public API); only for the same
 * client, key and server; DELETE through either ends it on both; idle expiry and the client's cap
 * delete the row, so no replica brings it back. Runs on SQLite and PostgreSQL (`TestDb`).
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Option, TestClock } from "effect"
import { makeCatalog } from "../../src/edge/mcp/catalog/clientCatalog.ts"
import type { ServerKind } from "../../src/edge/mcp/catalog/listing.ts"
import { McpSessions, McpSessionsLive, type McpSessionsShape } from "../../src/edge/mcp/McpSessions.ts"
import { memoryTools } from "../../src/edge/mcp/memory-tools/index.ts"
import { handshakeOf } from "../../src/edge/mcp/sessionRestore.ts"
import { Caller, type CallerShape } from "../../src/request/Caller.ts"
import { McpSessionStore, McpSessionStoreLive } from "../../src/services/mcp-sessions/McpSessionStore.ts"
import { ChangeFeedLive } from "../../src/storage/ChangeFeedLive.ts"
import { MCP_PROTOCOL, mcpHeaders, rpcAnswer } from "../support/mcpWire.ts"
import { TestDb } from "../support/testDb.ts"
import { eventually, eventuallyUnderTestClock } from "../runs/support/harness.ts"

const shared = McpSessionStoreLive.pipe(Layer.provideMerge(ChangeFeedLive), Layer.provideMerge(TestDb))
const edge = McpSessionsLive<never>(makeCatalog({}, memoryTools))

/**
 * Replicas A and B: one store and (unless `withFeed` is false) one change feed, an MCP edge each.
 * Without the feed for the test that moves the TestClock by half an hour: SQLite's feed would poll
 * 3,600 times on the way.
 */
const replicas = (withFeed = true) => Effect.gen(function* () {
  const ctx = yield* Layer.build(withFeed ? shared : McpSessionStoreLive.pipe(Layer.provideMerge(TestDb)))
  const a = Context.get(yield* Layer.build(edge).pipe(Effect.provide(ctx)), McpSessions)
  const b = Context.get(yield* Layer.build(edge).pipe(Effect.provide(ctx)), McpSessions)
  return { a, b, store: Context.get(ctx, McpSessionStore) }
})

const alice = Caller.client("alice")
const bob = Caller.client("bob")
const KEY = "alice-key-0123456789"

/** One request as the HTTP edge hands it over: the JSON body already parsed. */
const send = (on: McpSessionsShape, caller: CallerShape, method: string, sessionId: string | undefined, body?: unknown, opts: { kind?: ServerKind; token?: string; version?: string } = {}) => {
  const headers = mcpHeaders(opts.token ?? KEY, sessionId)
  if (sessionId !== undefined && opts.version !== undefined) headers["mcp-protocol-version"] = opts.version
  const request = new Request(`http://127.0.0.1/mcp/${opts.kind ?? "agents"}/mcp`, { method, headers })
  return on.handle(opts.kind ?? "agents", request, { caller, token: opts.token ?? KEY }, body)
}

const initialize = (on: McpSessionsShape, caller: CallerShape, protocolVersion = MCP_PROTOCOL, token = KEY) =>
  Effect.gen(function* () {
    const body = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion, capabilities: { roots: {} }, clientInfo: { name: "replica-test", version: "1" } } }
    const res = yield* send(on, caller, "POST", undefined, body, { token })
    const answer = yield* Effect.promise(() => rpcAnswer(res))
    const id = res.headers.get("mcp-session-id")
    if (id === null) throw new Error(`initialize answered ${res.status} without a session`)
    return { id, answer }
  })

/** Status and answer of a tools/list on the session. */
const list = (on: McpSessionsShape, caller: CallerShape, id: string, opts: { kind?: ServerKind; token?: string; version?: string } = {}) =>
  Effect.flatMap(send(on, caller, "POST", id, { jsonrpc: "2.0", id: 2, method: "tools/list" }, opts), (res) =>
    Effect.map(Effect.promise(() => rpcAnswer(res).catch(() => ({}))), (answer) => ({ status: res.status, answer }))
  )

describe("2025-era sessions over two replicas", () => {
  it("handshakeOf reads an initialize request only", () => {
    expect(handshakeOf({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", clientInfo: { name: "x" } } }))
      .toEqual({ protocolVersion: "2025-06-18", clientInfo: { name: "x" }, capabilities: {} })
    expect(handshakeOf({ jsonrpc: "2.0", id: 1, method: "tools/list" })).toBeUndefined()
    expect(handshakeOf([{ method: "initialize" }])).toBeUndefined()
    expect(handshakeOf(undefined)).toBeUndefined()
  })

  it.live("a session opened on A is served by B (rebuilt from the store), in the version it negotiated", () =>
    Effect.gen(function* () {
      const { a, b } = yield* replicas()
      const { id, answer } = yield* initialize(a, alice, "2025-06-18")
      expect(answer["result"]?.protocolVersion).toBe("2025-06-18")
      const onA = yield* list(a, alice, id, { version: "2025-06-18" })
      expect(yield* b.size).toBe(0)
      const onB = yield* list(b, alice, id, { version: "2025-06-18" })
      expect(onB.status).toBe(200)
      expect(onB.answer).toEqual(onA.answer)
      expect(yield* b.size).toBe(1)
      // Served from B's copy from now on, as on A.
      expect((yield* list(b, alice, id, { version: "2025-06-18" })).status).toBe(200)
    }).pipe(Effect.scoped))

  it.live("B refuses the session to another client, another key of the same client and the other server", () =>
    Effect.gen(function* () {
      const { a, b } = yield* replicas()
      const { id } = yield* initialize(a, alice)
      expect((yield* list(b, bob, id)).status).toBe(404)
      expect((yield* list(b, alice, id, { token: "alice-rotated-key-0123" })).status).toBe(404)
      expect((yield* list(b, alice, id, { kind: "memory" })).status).toBe(404)
      expect((yield* list(b, alice, "no-such-session")).status).toBe(404)
      expect(yield* b.size).toBe(0)
      expect((yield* list(b, alice, id)).status).toBe(200)
    }).pipe(Effect.scoped))

  it.live("DELETE through B ends the session on A too, and no replica brings it back; A keeps its other sessions", () =>
    Effect.gen(function* () {
      const { a, b } = yield* replicas()
      const { id } = yield* initialize(a, alice)
      const other = yield* initialize(a, alice)
      const deleted = yield* send(b, alice, "DELETE", id)
      expect(deleted.status).toBe(200)
      expect(yield* eventually(a.size, (n) => n === 1, "one session on replica a")).toBe(1)
      expect((yield* list(a, alice, id)).status).toBe(404)
      expect((yield* list(b, alice, id)).status).toBe(404)
      // The session still recorded stays open on A (its copy, not a rebuilt one: B has none).
      expect((yield* list(a, alice, other.id)).status).toBe(200)
      expect(yield* b.size).toBe(0)
    }).pipe(Effect.scoped))

  it.live("a replica's shutdown closes its copies only: the session lives on through the other", () =>
    Effect.gen(function* () {
      const { a, b } = yield* replicas()
      const { id } = yield* initialize(a, alice)
      yield* a.closeAll
      expect(yield* a.size).toBe(0)
      expect((yield* list(b, alice, id)).status).toBe(200)
    }).pipe(Effect.scoped))

  it.scoped("a session no replica used for 30 minutes is expired from the store: B cannot rebuild it", () =>
    Effect.gen(function* () {
      const { a, b, store } = yield* replicas(false)
      const { id } = yield* initialize(a, alice)
      yield* TestClock.adjust("31 minutes")
      // The sweep's delete reaches PostgreSQL a few round trips after the clock step, and the clock
      // does not wait for them: a sweep still out when the step ended sleeps its minute from there.
      // Each look moves the clock a minute on, so that the next sweep runs whatever the timing.
      yield* eventuallyUnderTestClock(
        Effect.zipRight(TestClock.adjust("1 minute"), store.stillOpen([id])),
        (open) => open.size === 0,
        "the expired row to go"
      )
      expect(yield* a.size).toBe(0)
      expect((yield* list(b, alice, id)).status).toBe(404)
    }))

  it.effect("the store keeps a client's newest sessions past its cap, and finds none unused since the cutoff", () =>
    Effect.gen(function* () {
      const store = yield* McpSessionStore
      const row = (sessionId: string, client: string, lastSeenAt: number) =>
        ({ sessionId, client, kind: "agents", keyDigest: "d", protocolVersion: MCP_PROTOCOL, clientInfo: { name: "x" }, capabilities: {}, lastSeenAt })
      expect(yield* store.record(row("s1", "alice", 1_000), 2)).toEqual([])
      expect(yield* store.record(row("s2", "alice", 2_000), 2)).toEqual([])
      expect(yield* store.record(row("b1", "bob", 500), 2)).toEqual([])
      expect(yield* store.record(row("s3", "alice", 3_000), 2)).toEqual(["s1"])
      expect([...(yield* store.stillOpen(["s1", "s2", "s3", "b1"]))].sort()).toEqual(["b1", "s2", "s3"])
      const found = yield* store.find("s2", 2_000)
      expect(Option.getOrThrow(found)).toMatchObject({ client: "alice", clientInfo: { name: "x" }, capabilities: {}, lastSeenAt: 2_000 })
      expect(Option.isNone(yield* store.find("s2", 2_001))).toBe(true)
      yield* store.touch("s2", 5_000)
      yield* store.touch("s2", 4_000)
      expect(Option.getOrThrow(yield* store.find("s2", 0)).lastSeenAt).toBe(5_000)
      expect(yield* store.expire(3_500)).toBe(2)
      expect([...(yield* store.stillOpen(["s2", "s3", "b1"]))]).toEqual(["s2"])
    }).pipe(Effect.provide(McpSessionStoreLive.pipe(Layer.provideMerge(TestDb)))))
})
