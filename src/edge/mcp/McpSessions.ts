/**
 * The MCP edge of the two servers (`hal0-agents`, `hal0-memory`), in both protocol eras:
 *
 * - 2026-07-28 requests carry their protocol version, client info and capabilities themselves: no
 *   handshake, no session. Each is served by the SDK's per-request handler and holds nothing after
 *   its answer.
 * - 2025-era clients (2025-11-25, 2025-06-18, 2025-03-26) open a session with `initialize`. Each
 *   session has its own SDK server and transport, is bound to the client that opened it, and is
 *   closed on DELETE, after an idle period, when its client's key is revoked or rotated, or when the
 *   daemon shuts down.
 *
 * In both, every request is authenticated by the edge on its own: the caller is the request's key,
 * never the session's. Tool calls in flight are tracked (`inFlight.ts`) so that revoking a key ends
 * its calls at once (`auth.forbidden`) and shutdown answers every open call (`bridge.unavailable`)
 * before connections close.
 */
import { createMcpHandler, isLegacyRequest, type McpHttpHandler, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server"
import { Context, Duration, Effect, Layer, Option, Runtime, Schedule, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../../config/AppConfig.ts"
import { AuthForbidden } from "../../domain/errors.ts"
import { Caller } from "../../request/Caller.ts"
import { Progress } from "../../request/Progress.ts"
import { Auth } from "../../services/auth/Auth.ts"
import type { Catalog, ServerKind } from "./catalog/listing.ts"
import { makeInFlight } from "./inFlight.ts"
import { authInfoFor, identityOf, makeMcpServer, type RequestIdentity, type ServerDeps } from "./mcpServer.ts"
import { callRuntime } from "./runTool.ts"
import { makeSkillsBridge } from "./skillsExtension.ts"
import { makeTasksBridge } from "./tasks/tasksExtension.ts"

export { SERVER_NAMES, SERVER_VERSION } from "./mcpServer.ts"

const IDLE_LIMIT = Duration.minutes(30)
/**
 * Sessions one client may hold. Each is an SDK server and transport kept until DELETE or 30 idle
 * minutes, so a client that never sends DELETE, or initializes in a loop, would otherwise grow the
 * map without bound; past this, its least recently used session is closed.
 */
export const MAX_SESSIONS_PER_CLIENT = 64
/** The handshake-free protocol revision. */
const MODERN_PROTOCOL = "2026-07-28"
/** SSE comment frames on open streams: proxies and clients drop a silent connection. */
const KEEP_ALIVE_MS = 15_000
/** `bridge.run_retention_days` when no config is provided (its default): a task's ttlMs. */
const DEFAULT_RETENTION_DAYS = 7
const DAY_MS = 86_400_000
/** A task request reports no progress (only a tool call's wait does). */
const NO_PROGRESS = { enabled: false, report: () => Effect.void }

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport
  readonly kind: ServerKind
  readonly owner: string
  /** The key that opened it: a GET stream lives on after its request, and ends when the key does. */
  readonly token: string
  lastSeen: number
}

/**
 * What a session's GET stream starts with: a comment and the reconnection delay. Nothing is sent on
 * that stream until the server has something to say, and the HTTP layer sends the headers only with
 * the first bytes, so without it a client saw the stream open at the first keep-alive, 15 s later.
 * It carries no event (no data): clients of every 2025 revision ignore it.
 */
export const STREAM_PRELUDE = ": stream open\nretry: 2000\n\n"

const withStreamPrelude = (res: Response): Response => {
  if (res.body === null || !(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) return res
  const prelude = new TextEncoder().encode(STREAM_PRELUDE)
  const reader = res.body.getReader()
  const body = new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(prelude),
    pull: async (controller) => {
      const { done, value } = await reader.read()
      if (done) controller.close()
      else controller.enqueue(value)
    },
    cancel: (reason) => reader.cancel(reason)
  })
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers })
}

/** What the SDK is handed with a request: the caller, and the body when the edge has read it. */
const sdkOptions = (identity: RequestIdentity, parsedBody: unknown) =>
  parsedBody === undefined ? { authInfo: authInfoFor(identity) } : { authInfo: authInfoFor(identity), parsedBody }

export interface McpSessionsShape {
  /**
   * Serves one HTTP request of an MCP server for an authenticated caller (either era). `parsedBody`:
   * the request's JSON body when the edge has already read it (the request then has none).
   */
  readonly handle: (kind: ServerKind, request: Request, identity: RequestIdentity, parsedBody?: unknown) => Effect.Effect<Response>
  /** Open 2025-era sessions. */
  readonly size: Effect.Effect<number>
  /** Closes every session. */
  readonly closeAll: Effect.Effect<void>
  /**
   * Shutdown: every tool call in flight answers `bridge.unavailable` (and new ones at once), the
   * answers are given a moment to leave, then every session is closed.
   */
  readonly drain: Effect.Effect<void>
  /** Ends the calls and sessions of keys that no longer authenticate (revoked, rotated). */
  readonly recheckKeys: Effect.Effect<void>
}

export class McpSessions extends Context.Tag("agent-bridge/McpSessions")<McpSessions, McpSessionsShape>() {}

/** The MCP edge over `catalog`: both protocol eras, the sessions of the 2025 era, the calls in flight. */
export const McpSessionsLive = <R>(catalog: Catalog) =>
  Layer.scoped(
    McpSessions,
    Effect.gen(function* () {
      const runtime = yield* Effect.runtime<R>()
      // Session times read the runtime's Clock (the SDK's callbacks are plain functions).
      const clock = yield* Effect.clock
      const now = () => clock.unsafeCurrentTimeMillis()
      const run = Runtime.runPromise(runtime)
      const inFlight = yield* makeInFlight
      const config = yield* Effect.serviceOption(AppConfig)
      const retentionDays = Option.match(config, { onNone: () => DEFAULT_RETENTION_DAYS, onSome: (c) => c.bridge.run_retention_days })
      const deps: ServerDeps = {
        catalog,
        runCall: (program, toolName, identity, progress, signal) =>
          inFlight.run(program, callRuntime(runtime, toolName, identity.caller, progress), toolName, identity, signal),
        skills: makeSkillsBridge((program) => run(Effect.either(program) as Effect.Effect<any, never, any>)),
        // Task requests are short reads and writes of the run service, with the request's caller.
        tasks: makeTasksBridge(
          (ctx) => (program) =>
            run(Effect.either(program).pipe(
              Effect.provideService(Caller, identityOf(ctx).caller),
              Effect.provideService(Progress, NO_PROGRESS)
            ) as Effect.Effect<any, never, any>),
          retentionDays * DAY_MS
        )
      }

      const forkListen = (program: Effect.Effect<void, never, any>) => Runtime.runFork(runtime)(program as Effect.Effect<void, never, R>)

      // ── 2026-07-28: one SDK handler per server, a server instance per request, no session.
      // A tool call is served by a server without the skills extension: nothing of that surface can
      // show in a call's answer, and attaching it (a resource template, two methods, a capability)
      // was a tenth of a no-op call's cost in the SDK; nor is a task method. The SDK has checked
      // `Mcp-Method` against the body before it asks for the instance; every other method gets the
      // whole surface. Only this era serves the Tasks extension.
      const modern: Record<ServerKind, McpHttpHandler> = {
        agents: createMcpHandler(
          ({ requestInfo }) => {
            const method = requestInfo?.headers.get("mcp-method") ?? ""
            return makeMcpServer("agents", deps, { skills: method !== "tools/call" && !method.startsWith("tasks/"), tasks: true })
          },
          { legacy: "reject", keepAliveMs: KEEP_ALIVE_MS }
        ),
        memory: createMcpHandler(() => makeMcpServer("memory", deps), { legacy: "reject", keepAliveMs: KEEP_ALIVE_MS })
      }
      yield* Effect.addFinalizer(() => Effect.promise(() => Promise.all([modern.agents.close(), modern.memory.close()]).catch(() => undefined)))

      // ── 2025 era: sessions, in order of last use, least recent first (a used one moves to the end).
      const sessions = new Map<string, Session>()

      const close = (id: string) => {
        const s = sessions.get(id)
        sessions.delete(id)
        return s === undefined ? Effect.void : Effect.promise(() => s.transport.close().catch(() => undefined))
      }

      /** Closes `owner`'s least recently used sessions beyond its cap. */
      const enforceCap = (owner: string) => {
        const own = [...sessions].filter(([, s]) => s.owner === owner).map(([id]) => id)
        for (const id of own.slice(0, Math.max(0, own.length - MAX_SESSIONS_PER_CLIENT))) void run(close(id))
      }

      const open = (kind: ServerKind, identity: RequestIdentity) =>
        Effect.promise(async () => {
          const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
            sessionIdGenerator: randomUUID,
            keepAliveMs: KEEP_ALIVE_MS,
            onsessioninitialized: (id) => {
              sessions.set(id, { transport, kind, owner: identity.caller.client, token: identity.token, lastSeen: now() })
              enforceCap(identity.caller.client)
            },
            onsessionclosed: (id) => {
              sessions.delete(id)
            }
          })
          await makeMcpServer(kind, deps).connect(transport)
          return transport
        })

      const sessionNotFound = () =>
        new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }), {
          status: 404,
          headers: { "content-type": "application/json" }
        })

      const handleLegacy = (kind: ServerKind, request: Request, identity: RequestIdentity, sid: string | null, parsedBody: unknown) =>
        Effect.gen(function* () {
          let transport: WebStandardStreamableHTTPServerTransport
          if (sid !== null) {
            const s = sessions.get(sid)
            // A session belongs to the client that opened it, on the server it opened.
            if (s === undefined || s.kind !== kind || s.owner !== identity.caller.client) return sessionNotFound()
            s.lastSeen = now()
            sessions.delete(sid)
            sessions.set(sid, s)
            transport = s.transport
          } else {
            transport = yield* open(kind, identity)
          }
          const res = yield* Effect.promise(() => transport.handleRequest(request, sdkOptions(identity, parsedBody)))
          return request.method === "GET" ? withStreamPrelude(res) : res
        })

      const handle: McpSessionsShape["handle"] = (kind, request, identity, parsedBody) =>
        Effect.gen(function* () {
          const sid = request.headers.get("mcp-session-id")
          const version = request.headers.get("mcp-protocol-version")
          // A session id is the 2025 era, and so is a 2025 version header; a 2026-07-28 header is
          // the modern era whatever the body says (the modern leg answers a missing envelope, as the
          // SDK's own classification would route it). Only the rest needs the body read to decide.
          const legacy =
            sid !== null ||
            (version !== null && version !== MODERN_PROTOCOL && version.startsWith("2025-")) ||
            (version !== MODERN_PROTOCOL && (yield* Effect.promise(() => isLegacyRequest(request, parsedBody).catch(() => true))))
          if (legacy) return yield* handleLegacy(kind, request, identity, sid, parsedBody)
          // Task notifications on subscriptions/listen are the Tasks extension's (tasks/taskListen.ts).
          const listen = kind === "agents" ? deps.tasks?.listen(parsedBody, identity.caller, forkListen) : undefined
          if (listen !== undefined) return listen
          return yield* Effect.promise(() => modern[kind].fetch(request, sdkOptions(identity, parsedBody)))
        })

      const sweepIdle = Effect.suspend(() => {
        const cutoff = now() - Duration.toMillis(IDLE_LIMIT)
        const idle = [...sessions.entries()].filter(([, s]) => s.lastSeen < cutoff).map(([id]) => id)
        return Effect.forEach(idle, close, { discard: true })
      })
      yield* Effect.forkScoped(Effect.repeat(sweepIdle, Schedule.spaced(Duration.minutes(1))))

      // ── Revocation: a key that no longer authenticates ends its calls and its sessions.
      const auth = yield* Effect.serviceOption(Auth)
      const stillValid = (identity: RequestIdentity) =>
        Option.match(auth, {
          onNone: () => Effect.succeed(true),
          onSome: (a) => Effect.map(a.authenticate(identity.token), (c) => Option.isSome(c) && c.value.client === identity.caller.client)
        })
      const recheckKeys = Effect.gen(function* () {
        const forbidden = new AuthForbidden({ message: "this key was revoked or rotated while the request was open" })
        yield* inFlight.endWhere((identity) => Effect.map(stillValid(identity), (ok) => !ok), forbidden)
        const stale = yield* Effect.filter([...sessions.entries()], ([, s]) =>
          Effect.map(stillValid({ caller: { client: s.owner, isAdmin: false, scopes: [] }, token: s.token }), (ok) => !ok)
        )
        yield* Effect.forEach(stale, ([id]) => close(id), { discard: true })
      }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("mcp: checking open requests' keys failed", cause)))
      if (Option.isSome(auth)) {
        // Each change to the clients table (this process's, or the CLI's from its own process, which
        // the process's ChangeFeed notices: on SQLite within 500 ms, the pace this watch had).
        yield* auth.value.changes().pipe(Stream.runForEach(() => recheckKeys), Effect.forkScoped)
      }

      const closeAll = Effect.zipRight(
        Effect.sync(() => deps.tasks?.closeStreams()),
        Effect.forEach([...sessions.keys()], close, { discard: true })
      )
      const drain = inFlight.drain.pipe(Effect.zipRight(closeAll))
      yield* Effect.addFinalizer(() => closeAll)
      return { handle, size: Effect.sync(() => sessions.size), closeAll, drain, recheckKeys }
    })
  )
