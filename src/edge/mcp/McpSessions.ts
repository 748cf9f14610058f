/**
 * Streamable HTTP sessions for the two MCP servers (`hal0-agents`, `hal0-memory`). Each session has
 * its own SDK server and web-standard transport, is bound to the client that opened it, and is closed
 * on DELETE, after an idle period, or when the daemon shuts down.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js"
import { Context, Duration, Effect, Layer, Runtime, Schedule } from "effect"
import { randomUUID } from "node:crypto"
import type { CallerShape } from "../../services/Caller.ts"
import type { Catalog, ServerKind } from "./catalog.ts"
import { progressFor } from "./progress.ts"
import { runTool } from "./runTool.ts"
import type { ToolDef } from "./ToolDef.ts"

export const SERVER_NAMES: Record<ServerKind, string> = { agents: "hal0-agents", memory: "hal0-memory" }
export const SERVER_VERSION = "0.1.0"
const IDLE_LIMIT = Duration.minutes(30)
/**
 * Sessions one client may hold. Each is an SDK server and transport kept until DELETE or 30 idle
 * minutes, so a client that never sends DELETE, or initializes in a loop, would otherwise grow the
 * map without bound; past this, its least recently used session is closed.
 */
export const MAX_SESSIONS_PER_CLIENT = 64

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport
  readonly kind: ServerKind
  readonly owner: string
  lastSeen: number
}

export interface McpSessionsShape {
  /** Serves one HTTP request of an MCP server for an authenticated caller. */
  readonly handle: (kind: ServerKind, request: Request, caller: CallerShape) => Effect.Effect<Response>
  readonly size: Effect.Effect<number>
  /** Closes every session (drain). */
  readonly closeAll: Effect.Effect<void>
}

export class McpSessions extends Context.Tag("agent-bridge/McpSessions")<McpSessions, McpSessionsShape>() {
  static make = <R>(catalog: Catalog) =>
    Layer.scoped(
      McpSessions,
      Effect.gen(function* () {
        const runtime = yield* Effect.runtime<R>()
        const run = Runtime.runPromise(runtime)
        /** In order of last use, least recent first (a used session is moved to the end). */
        const sessions = new Map<string, Session>()

        const makeServer = (kind: ServerKind) => {
          const mcp = new McpServer({ name: SERVER_NAMES[kind], version: SERVER_VERSION }, { capabilities: { tools: {} } })
          const callerOf = (extra: { authInfo?: { extra?: Record<string, unknown> } }): CallerShape => {
            const c = extra.authInfo?.extra?.["caller"] as CallerShape | undefined
            // The edge always sets it; a request without one never reaches a tool.
            if (c === undefined) throw new McpError(ErrorCode.InvalidRequest, "unauthenticated")
            return c
          }
          mcp.server.setRequestHandler(ListToolsRequestSchema, async (_req, extra) => ({
            tools: [...catalog.list(kind, callerOf(extra))]
          }))
          mcp.server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
            const caller = callerOf(extra)
            const tool = catalog.find(kind, caller, req.params.name)
            if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${req.params.name}`)
            return run(
              runTool(tool as ToolDef<any, any, R>, req.params.arguments, caller, progressFor(req.params._meta?.progressToken, extra)),
              { signal: extra.signal }
            )
          })
          return mcp
        }

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

        const open = (kind: ServerKind, caller: CallerShape) =>
          Effect.promise(async () => {
            const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
              sessionIdGenerator: randomUUID,
              onsessioninitialized: (id) => {
                sessions.set(id, { transport, kind, owner: caller.client, lastSeen: Date.now() })
                enforceCap(caller.client)
              },
              onsessionclosed: (id) => {
                sessions.delete(id)
              }
            })
            await makeServer(kind).connect(transport)
            return transport
          })

        const notFound = () =>
          new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }), {
            status: 404,
            headers: { "content-type": "application/json" }
          })

        const handle: McpSessionsShape["handle"] = (kind, request, caller) =>
          Effect.gen(function* () {
            const sid = request.headers.get("mcp-session-id")
            let transport: WebStandardStreamableHTTPServerTransport
            if (sid !== null) {
              const s = sessions.get(sid)
              // A session belongs to the client that opened it, on the server it opened.
              if (s === undefined || s.kind !== kind || s.owner !== caller.client) return notFound()
              s.lastSeen = Date.now()
              sessions.delete(sid)
              sessions.set(sid, s)
              transport = s.transport
            } else {
              transport = yield* open(kind, caller)
            }
            return yield* Effect.promise(() =>
              transport.handleRequest(request, {
                authInfo: { token: "", clientId: caller.client, scopes: [...caller.scopes], extra: { caller } }
              })
            )
          })

        const sweepIdle = Effect.suspend(() => {
          const cutoff = Date.now() - Duration.toMillis(IDLE_LIMIT)
          const idle = [...sessions.entries()].filter(([, s]) => s.lastSeen < cutoff).map(([id]) => id)
          return Effect.forEach(idle, close, { discard: true })
        })
        yield* Effect.forkScoped(Effect.repeat(sweepIdle, Schedule.spaced(Duration.minutes(1))))

        const closeAll = Effect.forEach([...sessions.keys()], close, { discard: true })
        yield* Effect.addFinalizer(() => closeAll)
        return { handle, size: Effect.sync(() => sessions.size), closeAll }
      })
    )
}
