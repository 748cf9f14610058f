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
 * 2025-era sessions are recorded in `McpSessionStore` (when the daemon provides it) so that every
 * replica on one database serves them: a session id this process has not seen is looked up there
 * (the same client and key) and its SDK server and transport rebuilt (`sessionRestore.ts`). This
 * process's copies are a cache of the store: a DELETE, the client's cap, a revoked key and idle
 * expiry delete the row, and every replica closes its copy when it hears of it (the `sessions`
 * topic of the change feed); a replica's shutdown closes only its own copies.
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
import { DEFAULT_RUN_RETENTION_DAYS } from "../../config/schema.ts"
import { CLIENT_QUOTA_DEFAULTS, DAY_MS, MCP_SESSION_IDLE_MS, MCP_SESSION_TOUCH_EVERY_MS, MCP_STORED_SESSIONS_FACTOR, SSE_KEEP_ALIVE_MS } from "../../domain/limits.ts"
import { AuthForbidden } from "../../domain/errors.ts"
import { Auth } from "../../services/auth/Auth.ts"
import { digestKey } from "../../services/auth/apiKeys.ts"
import { McpSessionStore, type StoredSession } from "../../services/mcp-sessions/McpSessionStore.ts"
import { ClientQuotas, quotaLimits } from "../../services/quotas/ClientQuotas.ts"
import { ChangeFeed } from "../../storage/ChangeFeed.ts"
import type { Catalog, ServerKind } from "./catalog/listing.ts"
import { makeInFlight } from "./inFlight.ts"
import { authInfoFor, identityOf, makeMcpServer, type RequestIdentity, type ServerDeps } from "./mcpServer.ts"
import { callRuntime } from "./runTool.ts"
import { handshakeOf, replayHandshake } from "./sessionRestore.ts"
import { STREAM_PRELUDE, streamQuotaGate, withStreamPrelude } from "./heldStreams.ts"
import { makeSkillsBridge } from "./skillsExtension.ts"
import { taskListenRequest } from "./tasks/taskListen.ts"
import { makeTasksBridge } from "./tasks/tasksExtension.ts"
import { asRequest, runEither } from "../runner.ts"
import { sseWebResponse } from "../sse.ts"

export { SERVER_NAMES, SERVER_VERSION } from "./mcpServer.ts"
export { STREAM_PRELUDE }

const IDLE_LIMIT = Duration.millis(MCP_SESSION_IDLE_MS)
/**
 * Sessions one client may hold (`limits.mcp_sessions_per_client`; this is its default). Each is an
 * SDK server and transport kept until DELETE or 30 idle minutes, so a client that never sends
 * DELETE, or initializes in a loop, would otherwise grow the map without bound; past this, its least
 * recently used session is closed.
 */
export const MAX_SESSIONS_PER_CLIENT = CLIENT_QUOTA_DEFAULTS.mcp_sessions_per_client
export const MAX_STORED_SESSIONS_PER_CLIENT = MCP_STORED_SESSIONS_FACTOR * MAX_SESSIONS_PER_CLIENT
/** The handshake-free protocol revision. */
const MODERN_PROTOCOL = "2026-07-28"
/** SSE comment frames on open streams: proxies and clients drop a silent connection. */
export const KEEP_ALIVE_MS = SSE_KEEP_ALIVE_MS

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport
  readonly kind: ServerKind
  readonly owner: string
  /** The key that opened it: a GET stream lives on after its request, and ends when the key does. */
  readonly token: string
  lastSeen: number
  /** When its stored last use was last moved (0: not recorded). */
  lastStored: number
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
      const limits = yield* quotaLimits
      const maxSessions = limits.mcp_sessions_per_client
      const maxStoredSessions = MCP_STORED_SESSIONS_FACTOR * maxSessions
      // A stream held open (a session's GET, a Tasks listen) takes one of the client's open streams.
      const withinStreamQuota = streamQuotaGate(yield* Effect.serviceOption(ClientQuotas), runtime)
      const retentionDays = Option.match(config, { onNone: () => DEFAULT_RUN_RETENTION_DAYS, onSome: (c) => c.bridge.run_retention_days })
      const deps: ServerDeps = {
        catalog,
        runCall: (program, toolName, identity, progress, signal) =>
          inFlight.run(program, callRuntime(runtime, toolName, identity.caller, progress), toolName, identity, signal),
        skills: makeSkillsBridge((program) => runEither(runtime, program as Effect.Effect<any, any, R>)),
        // Task requests are short reads and writes of the run service, with the request's caller.
        tasks: makeTasksBridge(
          (ctx) => (program) => runEither(runtime, asRequest(program, { caller: identityOf(ctx).caller }) as Effect.Effect<any, any, R>),
          retentionDays * DAY_MS
        )
      }

      // A Tasks listen's frames run in the daemon's runtime (its Auth service watches the key).
      const serveFrames = (frames: Stream.Stream<string, never, any>) =>
        sseWebResponse(frames as Stream.Stream<string, never, R>, runtime, { "cache-control": "no-cache" })

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
      const store = yield* Effect.serviceOption(McpSessionStore)
      const feed = yield* Effect.serviceOption(ChangeFeed)
      /**
       * Sessions' rows were deleted: this process's other subscribers (another McpSessions on the same
       * feed) hear it at once; other processes hear the commit (PostgreSQL's trigger, SQLite's poll).
       */
      const announceEnded = Option.match(feed, { onNone: () => Effect.void, onSome: (f) => f.notify("sessions") })
      /** A store step in the background of a request: its failure is logged, the request goes on. */
      const storeStep = <A, E>(what: string, step: (s: typeof store extends Option.Option<infer S> ? S : never) => Effect.Effect<A, E>) =>
        Option.match(store, {
          onNone: () => Effect.void,
          onSome: (s) => step(s).pipe(Effect.asVoid, Effect.catchAllCause((cause) => Effect.logWarning(`mcp: ${what} in the session store failed`, cause)))
        })

      /** Closes this process's copy of a session (the stored row, and so other replicas' copies, stay). */
      const close = (id: string) => {
        const s = sessions.get(id)
        sessions.delete(id)
        return s === undefined ? Effect.void : Effect.promise(() => s.transport.close().catch(() => undefined))
      }
      /** Ends sessions everywhere: deletes their rows (other replicas hear it) and closes the copies here. */
      const end = (ids: ReadonlyArray<string>) =>
        ids.length === 0
          ? Effect.void
          : storeStep("deleting sessions", (s) => Effect.zipRight(s.remove(ids), announceEnded)).pipe(Effect.zipRight(Effect.forEach(ids, close, { discard: true })))

      /** Closes `owner`'s least recently used sessions beyond its cap (here; the store keeps its own cap). */
      const enforceCap = (owner: string) => {
        const own = [...sessions].filter(([, s]) => s.owner === owner).map(([id]) => id)
        const beyond = own.slice(0, Math.max(0, own.length - maxSessions))
        if (beyond.length > 0) void run(end(beyond))
      }

      /**
       * A session's SDK server and transport. New: the transport makes its id at `initialize` and it
       * is recorded with what the handshake said (`handshake`). Restored (`restoring`): the stored id
       * and handshake are replayed into it, and nothing is recorded again.
       */
      const open = (kind: ServerKind, identity: RequestIdentity, handshake: ReturnType<typeof handshakeOf>, restoring?: StoredSession) =>
        Effect.promise(async () => {
          const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
            sessionIdGenerator: restoring === undefined ? randomUUID : () => restoring.sessionId,
            keepAliveMs: KEEP_ALIVE_MS,
            onsessioninitialized: async (id) => {
              const at = now()
              const recorded = restoring === undefined && handshake !== undefined && Option.isSome(store)
              sessions.set(id, { transport, kind, owner: identity.caller.client, token: identity.token, lastSeen: at, lastStored: restoring === undefined ? 0 : at })
              enforceCap(identity.caller.client)
              // Recorded before the answer to initialize leaves: the client's next request may reach another replica.
              if (recorded) {
                const row: StoredSession = { sessionId: id, client: identity.caller.client, kind, keyDigest: digestKey(identity.token), lastSeenAt: at, ...handshake }
                await run(storeStep("recording a session", (s) =>
                  Effect.flatMap(s.record(row, maxStoredSessions), (beyond) => {
                    // Recorded: touched from now on, and checked when sessions end elsewhere.
                    const own = sessions.get(id)
                    if (own !== undefined) own.lastStored = at
                    return (
                      beyond.length === 0 ? Effect.void : Effect.zipRight(announceEnded, Effect.forEach(beyond, close, { discard: true }))
                    )
                  })
                ))
              }
            },
            onsessionclosed: (id) => {
              sessions.delete(id)
              return run(storeStep("deleting a session", (s) => Effect.zipRight(s.remove([id]), announceEnded)))
            }
          })
          await makeMcpServer(kind, deps).connect(transport)
          if (restoring !== undefined) {
            await replayHandshake(transport, restoring, authInfoFor(identity)).catch(async (e) => {
              await transport.close().catch(() => undefined)
              throw e
            })
          }
          return transport
        })

      /**
       * A session this process has no copy of, rebuilt from the store when it is recorded there for
       * this client, server and key and was used within the idle limit; else none. Concurrent requests
       * of one session share one rebuild.
       */
      const restoring = new Map<string, Promise<Session | undefined>>()
      const restore = (kind: ServerKind, identity: RequestIdentity, sid: string): Effect.Effect<Session | undefined> =>
        Option.match(store, {
          onNone: () => Effect.succeed(undefined),
          onSome: (s) =>
            Effect.suspend(() => {
              const pending = restoring.get(sid)
              if (pending !== undefined) return Effect.promise(() => pending)
              const rebuild = Effect.gen(function* () {
                const found = yield* s.find(sid, now() - Duration.toMillis(IDLE_LIMIT))
                if (Option.isNone(found)) return undefined
                const row = found.value
                if (row.kind !== kind || row.client !== identity.caller.client || row.keyDigest !== digestKey(identity.token)) return undefined
                yield* open(kind, identity, undefined, row)
                yield* Effect.logDebug("mcp: session rebuilt from the store").pipe(Effect.annotateLogs({ client: row.client }))
                return sessions.get(sid)
              }).pipe(Effect.catchAllCause((cause) => Effect.as(Effect.logWarning("mcp: rebuilding a stored session failed", cause), undefined)))
              const promise = run(rebuild).finally(() => restoring.delete(sid))
              restoring.set(sid, promise)
              return Effect.promise(() => promise)
            })
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
            const s = sessions.get(sid) ?? (yield* restore(kind, identity, sid))
            // A session belongs to the client that opened it, on the server it opened.
            if (s === undefined || s.kind !== kind || s.owner !== identity.caller.client) return sessionNotFound()
            s.lastSeen = now()
            sessions.delete(sid)
            sessions.set(sid, s)
            if (s.lastStored > 0 && s.lastSeen - s.lastStored >= MCP_SESSION_TOUCH_EVERY_MS) {
              s.lastStored = s.lastSeen
              yield* Effect.forkDaemon(storeStep("touching a session", (st) => st.touch(sid, s.lastSeen)))
            }
            transport = s.transport
          } else {
            transport = yield* open(kind, identity, handshakeOf(parsedBody))
          }
          if (request.method !== "GET") return yield* Effect.promise(() => transport.handleRequest(request, sdkOptions(identity, parsedBody)))
          // A session's GET stream is held open: one of the client's open streams.
          return yield* withinStreamQuota(
            identity.caller.client,
            "an MCP session's GET stream",
            Effect.map(Effect.promise(() => transport.handleRequest(request, sdkOptions(identity, parsedBody))), withStreamPrelude)
          )
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
          // Task notifications on subscriptions/listen are the Tasks extension's (tasks/taskListen.ts),
          // each stream one of the client's open streams.
          if (kind === "agents" && deps.tasks !== undefined && taskListenRequest(parsedBody) !== undefined) {
            const tasks = deps.tasks
            return yield* withinStreamQuota(
              identity.caller.client,
              "an MCP Tasks listen",
              Effect.sync(() => tasks.listen(parsedBody, identity.caller, { token: identity.token, client: identity.caller.client }, serveFrames)!)
            )
          }
          return yield* Effect.promise(() => modern[kind].fetch(request, sdkOptions(identity, parsedBody)))
        })

      const sweepIdle = Effect.suspend(() => {
        const cutoff = now() - Duration.toMillis(IDLE_LIMIT)
        const idle = [...sessions.entries()].filter(([, s]) => s.lastSeen < cutoff).map(([id]) => id)
        // Here: the copies unused here (one used through another replica since is rebuilt if it comes
        // back). In the store: the sessions no replica touched within the limit, whose copies every
        // replica then closes (the `sessions` topic).
        return Effect.zipRight(Effect.forEach(idle, close, { discard: true }), storeStep("expiring sessions", (s) => Effect.flatMap(s.expire(cutoff), (n) => (n > 0 ? announceEnded : Effect.void))))
      })
      yield* Effect.forkScoped(Effect.repeat(sweepIdle, Schedule.spaced(Duration.minutes(1))))

      // ── Sessions ended through another replica (DELETE, the cap, expiry): close the copies here.
      // Suspended: the copies open when a change arrives. Only copies with a row are checked (one whose
      // recording failed lives here alone, as before the store).
      const dropEnded = Effect.suspend(() => {
        const recorded = [...sessions.entries()].filter(([, s]) => s.lastStored > 0).map(([id]) => id)
        return recorded.length === 0
          ? Effect.void
          : storeStep("checking sessions ended elsewhere", (s) =>
            Effect.flatMap(s.stillOpen(recorded), (open) => Effect.forEach(recorded.filter((id) => !open.has(id)), close, { discard: true }))
          )
      })
      if (Option.isSome(feed) && Option.isSome(store)) {
        const ended = yield* feed.value.subscribe("sessions")
        yield* ended.pipe(Stream.runForEach(() => dropEnded), Effect.forkScoped)
      }

      // ── Revocation: a key that no longer authenticates ends its calls and its sessions.
      const auth = yield* Effect.serviceOption(Auth)
      const stillValid = (identity: RequestIdentity) =>
        Option.match(auth, {
          onNone: () => Effect.succeed(true),
          // A check the database could not answer (its server out) ends nothing: the next change asks again.
          onSome: (a) => Effect.map(a.authenticate(identity.token), (c) => Option.isSome(c) && c.value.client === identity.caller.client).pipe(
            Effect.catchTag("StoreUnavailable", () => Effect.succeed(true))
          )
        })
      const recheckKeys = Effect.gen(function* () {
        const forbidden = new AuthForbidden({ message: "this key was revoked or rotated while the request was open" })
        yield* inFlight.endWhere((identity) => Effect.map(stillValid(identity), (ok) => !ok), forbidden)
        const stale = yield* Effect.filter([...sessions.entries()], ([, s]) =>
          Effect.map(stillValid({ caller: { client: s.owner, isAdmin: false, scopes: [] }, token: s.token }), (ok) => !ok)
        )
        yield* end(stale.map(([id]) => id))
      }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("mcp: checking open requests' keys failed", cause)))
      if (Option.isSome(auth)) {
        // Each change to the clients table (this process's, or the CLI's from its own process, which
        // the process's ChangeFeed notices: on SQLite within 500 ms, the pace this watch had).
        yield* auth.value.changes().pipe(Stream.runForEach(() => recheckKeys), Effect.forkScoped)
      }

      // Suspended: the sessions open when it runs (not when it was defined, which closed none).
      const closeAll = Effect.zipRight(
        Effect.sync(() => deps.tasks?.closeStreams()),
        Effect.suspend(() => Effect.forEach([...sessions.keys()], close, { discard: true }))
      )
      const drain = inFlight.drain.pipe(Effect.zipRight(closeAll))
      yield* Effect.addFinalizer(() => closeAll)
      return { handle, size: Effect.sync(() => sessions.size), closeAll, drain, recheckKeys }
    })
  )
