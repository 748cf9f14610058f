/**
 * OAuth's HTTP surface (docs/REFERENCE.md, "OAuth"), on the one listener, present only when
 * `oauth.issuer` is set (the `OAuth` service exists); otherwise every path here is the listener's
 * plain 404, as before:
 *
 *   GET  /.well-known/oauth-protected-resource/mcp/agents/mcp   RFC 9728 metadata (and …/mcp/memory/mcp)
 *   GET  /.well-known/oauth-authorization-server                RFC 8414 metadata (the provider's)
 *   *    /oauth/authorize, /oauth/token, /oauth/register, /oauth/revoke, /oauth/jwks   the provider
 *   GET  /oauth/interaction/:uid    the waiting page (opens the inbox row; moves on once decided)
 *   POST /oauth/interaction/:uid    the admin key's decision on the spot (sign-in limit applies)
 *
 * The provider's endpoints get the raw Node request and response (it is a Koa application); the
 * platform sends nothing more for a response already ended.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { buildOAuthProtectedResourceMetadata } from "@modelcontextprotocol/server"
import { Effect, Option } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { OAUTH_PREFIX, type OAuthResourceKind, resourceUrl } from "../../domain/oauth.ts"
import { OAuth, type OAuthShape } from "../../services/oauth/OAuth.ts"
import { Consents } from "../../services/oauth/Consents.ts"
import { decideConsent, scopesOf } from "../../services/oauth/approve.ts"
import { InboxWeb } from "../inbox/InboxWeb.ts"
import { readForm } from "../inbox/respond.ts"
import { withSecurityHeaders } from "../inbox/security.ts"
import { notFound } from "../http/responses.ts"
import { endedPage, waitingPage } from "./consentPage.ts"

const raw = (req: HttpServerRequest.HttpServerRequest) => ({
  req: NodeHttpServerRequest.toIncomingMessage(req) as IncomingMessage,
  res: NodeHttpServerRequest.toServerResponse(req) as ServerResponse
})

/** The request's OAuth service, or the plain 404 when OAuth is off. */
const withOAuth = <E, R>(serve: (oauth: OAuthShape) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.flatMap(Effect.serviceOption(OAuth), Option.match({ onNone: () => Effect.succeed(notFound()), onSome: serve }))

/** RFC 9728: which authorization server protects this MCP server, and how to present its tokens. */
export const protectedResourceMetadata = (kind: OAuthResourceKind) =>
  withOAuth((oauth) =>
    Effect.succeed(HttpServerResponse.unsafeJson(
      buildOAuthProtectedResourceMetadata({
        oauthMetadata: { issuer: oauth.issuer } as never,
        resourceServerUrl: new URL(resourceUrl(oauth.issuer, kind)),
        scopesSupported: kind === "memory" ? ["agents", "memory"] : ["agents"],
        resourceName: kind === "memory" ? "agent-bridge memory" : "agent-bridge agents",
        dangerouslyAllowInsecureIssuerUrl: oauth.issuer.startsWith("http:")
      }),
      { headers: { "cache-control": "no-store", "access-control-allow-origin": "*" } }
    ))
  )

/** The provider's endpoints: the raw exchange, answered by it. */
export const providerEndpoint = withOAuth((oauth) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const { req, res } = raw(request)
    yield* Effect.promise(() => oauth.serve(req, res))
    return HttpServerResponse.empty()
  })
)

/** The consents' store: present whenever OAuth is (Daemon.ts builds both from `oauth`). */
const consentsOf = Effect.flatMap(Effect.serviceOption(Consents), Option.match({
  onNone: () => Effect.dieMessage("OAuth is on without its consents store"),
  onSome: Effect.succeed
}))

const page = (text: string, status = 200) =>
  withSecurityHeaders(HttpServerResponse.text(text, { status, contentType: "text/html; charset=utf-8" }))

const INTERACTION = new RegExp(`^${OAUTH_PREFIX}/interaction/([A-Za-z0-9_-]{1,64})$`)

/** GET: open (or read) the request's row; decided, end the authorization and send the browser on. */
const interactionGet = (oauth: OAuthShape, notice: string | null = null) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const { req, res } = raw(request)
    const pending = yield* Effect.promise(() => oauth.pending(req, res))
    if (pending === undefined) return page(endedPage("This connection request has ended or expired. Start again from your app."), 400)
    const redirectHost = (() => { try { return new URL(pending.redirectUri).host } catch { return "" } })()
    const consents = yield* consentsOf
    const opened = yield* consents.open({
      id: pending.uid,
      client_id: pending.clientId,
      client_name: pending.clientName,
      client_host: pending.documentHost === "" ? redirectHost : pending.documentHost,
      redirect_host: redirectHost,
      scopes: pending.scopes,
      resource: pending.resource
    })
    if (Option.isNone(opened)) {
      return page(endedPage("Too many connection requests are waiting for the operator. Try again later."), 429)
    }
    const consent = opened.value
    if (consent.state === "pending") return page(waitingPage(consent, notice))
    const outcome = consent.state === "approved" && consent.bridge_client !== null
      ? { client: consent.bridge_client, scopes: scopesOf(consent) }
      : { denied: consent.state === "expired" ? "the operator did not decide in time" : "the operator denied the request" }
    yield* Effect.logInfo(`oauth: connection request ${consent.state}`).pipe(Effect.annotateLogs({ oauth_client: consent.client_name, bridge_client: consent.bridge_client ?? "" }))
    const location = yield* Effect.promise(() => oauth.finish(req, res, outcome))
    return withSecurityHeaders(HttpServerResponse.redirect(location, { status: 303 }))
  })

/** POST: the admin key decides on the spot; wrong keys count against the inbox's sign-in limit. */
const interactionPost = (oauth: OAuthShape, uid: string) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const web = yield* InboxWeb
    const field = yield* Effect.either(readForm)
    if (field._tag === "Left") return page(endedPage("The form was too large."), 413)
    const address = web.clientAddress(request)
    const attempt = yield* web.sessions.signInLimit.attempt(address)
    if (attempt._tag === "Refused") {
      return HttpServerResponse.setHeader(yield* interactionGet(oauth, "Too many wrong keys: try again later."), "retry-after", String(attempt.retryAfterSeconds))
    }
    if (!web.isAdminKey((field.right("key") ?? "").trim())) {
      yield* Effect.logWarning("oauth: consent page decision refused (not the admin key)").pipe(Effect.annotateLogs({ client_address: address }))
      return yield* interactionGet(oauth, "That is not the admin key.")
    }
    yield* web.sessions.signInLimit.succeeded(address)
    yield* decideConsent(uid, field.right("decision") === "approve", "admin").pipe(
      Effect.provideService(Consents, yield* consentsOf),
      Effect.catchAll((e) => Effect.logWarning("oauth: approving a connection request failed", e.message))
    )
    return withSecurityHeaders(HttpServerResponse.redirect(`${OAUTH_PREFIX}/interaction/${uid}`, { status: 303 }))
  })

/** `/oauth/*`: the interaction pages, else the provider. */
export const oauthPaths = withOAuth((oauth) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const path = new URL(request.url, "http://bridge.invalid").pathname
    const m = INTERACTION.exec(path)
    if (m === null) return yield* providerEndpoint
    if (request.method === "GET") return yield* interactionGet(oauth)
    if (request.method === "POST") return yield* interactionPost(oauth, m[1]!)
    return HttpServerResponse.setHeader(HttpServerResponse.text("method not allowed", { status: 405 }), "allow", "GET, POST")
  })
)
