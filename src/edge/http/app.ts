/**
 * The one HTTP listener's routing: host guard first, then `/healthz`, the two MCP servers (auth and
 * scope checked here, so no tool ever sees an unauthenticated request) and the operator inbox.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { AppConfig } from "../../config/AppConfig.ts"
import { bearerToken } from "../../domain/keys.ts"
import { Auth } from "../../services/Auth.ts"
import type { CallerShape } from "../../services/Caller.ts"
import type { ServerKind } from "../mcp/catalog.ts"
import { McpSessions } from "../mcp/McpSessions.ts"
import { inboxApp, isInboxPath } from "../inbox/routes.ts"
import { healthReport } from "./health.ts"
import { hostAllowed } from "./hostGuard.ts"
import { originAllowed } from "./originGuard.ts"
import { forbidden, jsonError, notFound } from "./responses.ts"

const MCP_PATHS: Record<string, ServerKind> = { "/mcp/agents/mcp": "agents", "/mcp/memory/mcp": "memory" }

/**
 * What the Streamable HTTP transport serves. Any other method is refused here, before the request
 * becomes a web `Request`: undici cannot represent some (TRACE, CONNECT), which made them a 500.
 */
const MCP_METHODS = new Set(["GET", "POST", "DELETE"])

const methodNotAllowed = () =>
  jsonError(405, "method_not_allowed", "the MCP endpoint takes GET, POST and DELETE").pipe(
    HttpServerResponse.setHeader("allow", "GET, POST, DELETE")
  )

const authenticate = (req: HttpServerRequest.HttpServerRequest) =>
  Effect.flatMap(Auth, (auth) => auth.authenticate(bearerToken(req.headers["authorization"])))

const serveMcp = (kind: ServerKind, req: HttpServerRequest.HttpServerRequest, caller: CallerShape) =>
  Effect.gen(function* () {
    const sessions = yield* McpSessions
    const web = yield* HttpServerRequest.toWeb(req)
    const res = yield* sessions.handle(kind, web, { caller, token: bearerToken(req.headers["authorization"]) ?? "" })
    return HttpServerResponse.fromWeb(res)
  })

export const httpApp = Effect.gen(function* () {
  const req = yield* HttpServerRequest.HttpServerRequest
  const config = yield* AppConfig
  if (!hostAllowed(req.headers["host"], config.bridge.allowed_hosts)) {
    return forbidden("this Host is not allowed (add it to bridge.allowed_hosts)")
  }
  const path = new URL(req.url, "http://bridge.invalid").pathname

  if (path === "/healthz") {
    const report = yield* healthReport
    return HttpServerResponse.unsafeJson(report, { status: report.ready ? 200 : 503 })
  }

  // The operator's inbox page (src/edge/inbox): its own sign-in with the admin key, sessions and CSRF.
  if (isInboxPath(path)) return yield* inboxApp(path)

  if (path === "/mcp/agents" || path.startsWith("/mcp/agents/") || path === "/mcp/memory" || path.startsWith("/mcp/memory/")) {
    const kind: ServerKind = path.startsWith("/mcp/agents") ? "agents" : "memory"
    if (kind === "agents" && !config.bridge.enabled) return notFound()
    if (!originAllowed(req.headers["origin"], config.bridge.allowed_origins)) {
      return forbidden("this Origin is not allowed (add it to bridge.allowed_origins)")
    }
    const caller = yield* authenticate(req)
    if (Option.isNone(caller)) return forbidden()
    if (kind === "memory" && !caller.value.scopes.includes("memory")) {
      return forbidden("this key lacks the memory scope (agent-bridge client add NAME --scope memory)")
    }
    const target = MCP_PATHS[path]
    if (target === undefined) return notFound()
    if (!MCP_METHODS.has(req.method)) return methodNotAllowed()
    return yield* serveMcp(target, req, caller.value)
  }

  return notFound()
}).pipe(
  Effect.catchAllCause((cause) =>
    Effect.logError("http request failed", cause).pipe(Effect.as(jsonError(500, "bridge.internal", "internal error")))
  )
)
