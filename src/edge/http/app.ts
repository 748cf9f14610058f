/**
 * The one HTTP listener: an `HttpRouter` whose routes are the table below, behind the host guard
 * (every path), and the MCP gate (origin guard, `bridge.enabled`, key, scope) on the MCP paths, so
 * no tool ever sees an unauthenticated request. The inbox has its own sign-in, sessions and CSRF
 * (`inbox/routes.ts`, whose pages are its own table). Anything else is a JSON 404.
 */
import { HttpMiddleware, HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Effect, Option } from "effect"
import { AppConfig } from "../../config/AppConfig.ts"
import { bearerToken } from "../../services/auth/apiKeys.ts"
import { urlHoldsNul } from "../../domain/text.ts"
import { Auth } from "../../services/auth/Auth.ts"
import type { CallerShape } from "../../request/Caller.ts"
import type { ServerKind } from "../mcp/catalog/listing.ts"
import { McpSessions } from "../mcp/McpSessions.ts"
import { inboxApp } from "../inbox/routes.ts"
import { consoleApp, isConsolePath } from "../inbox/console/routes.ts"
import { a2aRoute, agentCardRoute } from "../a2a/routes.ts"
import { A2A_PATH, AGENT_CARD_PATH } from "../a2a/card.ts"
import { healthReport } from "./health.ts"
import { METRICS_PATH, metricsResponse } from "./metrics.ts"
import { requestHasOperatorKey } from "./operatorKey.ts"
import { hostAllowed } from "./hostGuard.ts"
import { originAllowed } from "./originGuard.ts"
import { bridgeErrorResponse, forbidden, jsonError, notFound } from "./responses.ts"

/**
 * 401 of an MCP path with OAuth on: `WWW-Authenticate: Bearer` naming the resource's metadata
 * (RFC 9728), `error="invalid_token"` when a token was presented and refused (RFC 6750).
 */
const unauthorized = (issuer: string, kind: OAuthResourceKind, refused: string | null) =>
  jsonError(401, "auth.unauthorized", refused ?? "sign in with OAuth, or send a bridge key").pipe(
    HttpServerResponse.setHeader(
      "www-authenticate",
      `Bearer resource_metadata="${new URL(resourceMetadataPath(kind), issuer).href}"${refused === null ? "" : `, error="invalid_token", error_description="${refused}"`}`
    )
  )
import { fromMcpResponse, toMcpRequest } from "./webExchange.ts"
import { OAuth } from "../../services/oauth/OAuth.ts"
import { BRIDGE_KEY_PREFIX } from "../../domain/bridgeKeys.ts"
import { type OAuthResourceKind, resourceMetadataPath, resourceUrl } from "../../domain/oauth.ts"
import { oauthPaths, protectedResourceMetadata, providerEndpoint } from "../oauth/routes.ts"

/**
 * What the Streamable HTTP transport serves. Any other method is refused here, before the request
 * becomes a web `Request`: undici cannot represent some (TRACE, CONNECT), which made them a 500.
 */
const MCP_METHODS = new Set(["GET", "POST", "DELETE"])

const methodNotAllowed = () =>
  jsonError(405, "method_not_allowed", "the MCP endpoint takes GET, POST and DELETE").pipe(
    HttpServerResponse.setHeader("allow", "GET, POST, DELETE")
  )

/** Host guard (DNS rebinding), before any route: every path, every method. */
const hostGuard = HttpMiddleware.make((app) =>
  Effect.gen(function* () {
    const req = yield* HttpServerRequest.HttpServerRequest
    const config = yield* AppConfig
    if (!hostAllowed(req.headers["host"], config.bridge.allowed_hosts)) {
      return forbidden("this Host is not allowed (add it to bridge.allowed_hosts)")
    }
    return yield* app
  })
)

/**
 * The MCP gate, in order: the agents server exists only while `bridge.enabled`; a browser's
 * `Origin` must be allowed; the key must authenticate; the memory server needs scope `memory`.
 * Only then does `serve` run, with the caller and the key it used.
 */
const mcpGate = <E, R>(kind: ServerKind, serve: (caller: CallerShape, token: string) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.gen(function* () {
    const req = yield* HttpServerRequest.HttpServerRequest
    const config = yield* AppConfig
    if (kind === "agents" && !config.bridge.enabled) return notFound()
    if (!originAllowed(req.headers["origin"], config.bridge.allowed_origins, req.headers["host"])) {
      return forbidden("this Origin is not allowed (add it to bridge.allowed_origins)")
    }
    const token = bearerToken(req.headers["authorization"])
    // With OAuth on, no credentials is 401 with the way to get some (RFC 9728); off, 403 as ever.
    const oauth = yield* Effect.serviceOption(OAuth)
    if (Option.isSome(oauth) && token === undefined) return unauthorized(oauth.value.issuer, kind, null)
    const checked = yield* Effect.flatMap(Auth, (auth) => Effect.either(auth.authenticate(token)))
    // The database server out: 503 store_unavailable, which the client retries (not a 500).
    if (checked._tag === "Left") return bridgeErrorResponse(checked.left)
    const caller = checked.right
    if (Option.isNone(caller)) {
      // A token that is no bridge key may be an expired or revoked access token: 401, so the client refreshes.
      return Option.isSome(oauth) && !token!.startsWith(BRIDGE_KEY_PREFIX) ? unauthorized(oauth.value.issuer, kind, "the access token is not valid (expired or revoked)") : forbidden()
    }
    // An access token serves only the resource it was issued for (RFC 8707).
    const audience = caller.value.audience
    if (audience !== undefined && (Option.isNone(oauth) || !audience.includes(resourceUrl(oauth.value.issuer, kind)))) {
      return Option.isSome(oauth) ? unauthorized(oauth.value.issuer, kind, "the access token was issued for another resource") : forbidden()
    }
    if (kind === "memory" && !caller.value.scopes.includes("memory")) {
      return forbidden("this key lacks the memory scope (agent-bridge client add NAME --scope memory)")
    }
    return yield* serve(caller.value, token ?? "")
  })

/** The MCP endpoint itself: both protocol eras (`McpSessions`). */
const mcpEndpoint = (kind: ServerKind) =>
  mcpGate(kind, (caller, token) =>
    Effect.gen(function* () {
      const req = yield* HttpServerRequest.HttpServerRequest
      if (!MCP_METHODS.has(req.method)) return methodNotAllowed()
      const sessions = yield* McpSessions
      const { request, parsedBody } = yield* toMcpRequest(req)
      return yield* fromMcpResponse(yield* sessions.handle(kind, request, { caller, token }, parsedBody))
    })
  )

/** Other paths under a server's prefix: 404, but only to a caller the endpoint would let in. */
const mcpElsewhere = (kind: ServerKind) => mcpGate(kind, () => Effect.succeed(notFound()))

/**
 * `/healthz`: the whole report to the operator's keys (admin key, metrics token); to anyone else a
 * status and readiness only (no profile, no storage place, no database address).
 */
const health = Effect.gen(function* () {
  const report = yield* healthReport
  const whole = yield* requestHasOperatorKey
  return HttpServerResponse.unsafeJson(whole ? report : { status: report.status, ready: report.ready }, {
    status: report.ready ? 200 : 503,
    headers: { "cache-control": "no-store" }
  })
})

/**
 * The inbox page answers its own paths (its table is in inbox/routes.ts); the operator's console
 * (runs, clients: inbox/console/) lives under the same prefix and sign-in.
 */
const inbox = Effect.flatMap(
  HttpServerRequest.HttpServerRequest,
  (req): Effect.Effect<HttpServerResponse.HttpServerResponse, never, Effect.Effect.Context<ReturnType<typeof inboxApp>> | Effect.Effect.Context<ReturnType<typeof consoleApp>>> => {
    // No page, id, name or filter holds a NUL (and PostgreSQL cannot look one up): no such address.
    if (urlHoldsNul(req.url)) return Effect.succeed(notFound())
    const path = new URL(req.url, "http://bridge.invalid").pathname
    return isConsolePath(path) ? consoleApp(path) : inboxApp(path)
  }
)

/**
 * Every route of the listener, in one table (any method: each handler answers the methods it does
 * not take itself, with the right `Allow`). Add a route here.
 */
export const edgeRouter = HttpRouter.empty.pipe(
  HttpRouter.all("/healthz", health),
  HttpRouter.all(METRICS_PATH, metricsResponse),
  HttpRouter.all("/mcp/agents/mcp", mcpEndpoint("agents")),
  HttpRouter.all("/mcp/memory/mcp", mcpEndpoint("memory")),
  HttpRouter.all("/mcp/agents", mcpElsewhere("agents")),
  HttpRouter.all("/mcp/agents/*", mcpElsewhere("agents")),
  HttpRouter.all("/mcp/memory", mcpElsewhere("memory")),
  HttpRouter.all("/mcp/memory/*", mcpElsewhere("memory")),
  HttpRouter.all(A2A_PATH, a2aRoute),
  HttpRouter.all(AGENT_CARD_PATH, agentCardRoute),
  // OAuth (edge/oauth/routes.ts): a plain 404 each while `oauth.issuer` is unset.
  HttpRouter.all(resourceMetadataPath("agents") as `/${string}`, protectedResourceMetadata("agents")),
  HttpRouter.all(resourceMetadataPath("memory") as `/${string}`, protectedResourceMetadata("memory")),
  HttpRouter.all("/.well-known/oauth-authorization-server", providerEndpoint),
  HttpRouter.all("/.well-known/openid-configuration", providerEndpoint),
  HttpRouter.all("/oauth/*", oauthPaths),
  HttpRouter.all("/inbox", inbox),
  HttpRouter.all("/inbox/*", inbox)
)

/**
 * Paths match exactly as written: no case folding, no trailing or doubled slash forgiven (the
 * router's defaults), so `/MCP/agents/mcp` or `//mcp/agents/mcp` is not the endpoint.
 */
const EXACT_PATHS = { caseSensitive: true, ignoreTrailingSlash: false, ignoreDuplicateSlashes: false } as const

// The router is an Effect that builds its matcher once, on its first request (with this config).
export const httpApp = edgeRouter.pipe(
  HttpRouter.withRouterConfig(EXACT_PATHS),
  Effect.catchTag("RouteNotFound", () => Effect.succeed(notFound())),
  Effect.catchAllCause((cause) =>
    // Interrupted only: the client went away while its answer was awaited (webExchange.ts); no one reads this.
    Cause.isInterruptedOnly(cause)
      ? Effect.succeed(HttpServerResponse.empty({ status: 499 }))
      : Effect.logError("http request failed", cause).pipe(Effect.as(jsonError(500, "bridge.internal", "internal error")))
  ),
  hostGuard
)

/**
 * The listener's app, served. The platform wraps every request in a tracing span by default (URL
 * parsed, every header copied into attributes); the bridge exports no traces, so that was pure cost
 * on every MCP call (about a fifth of a bare request's time), and it is turned off.
 */
export const serveEdge = HttpServer.serve(httpApp).pipe(HttpMiddleware.withTracerDisabledWhen(() => true))
