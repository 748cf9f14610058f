/**
 * The authorization server (docs/REFERENCE.md, "OAuth"): `oidc-provider` (a certified, maintained
 * OAuth 2.x / OpenID Connect server) configured for the MCP authorization profile, imported only
 * when `oauth.issuer` is set (a key-only bridge never loads it). It holds every record in
 * `OAuthStore` (hashed ids, both dialects, every replica) and its cookie keys there too; it issues
 * opaque access tokens bound to one resource (RFC 8707), rotating refresh tokens, codes only with
 * PKCE S256, `iss` in every authorization response (RFC 9207), and answers revocation, RFC 8414
 * metadata, Dynamic Client Registration (redirect hosts checked, `domain/oauth.ts`) and Client ID
 * Metadata Documents (fetched through `metadataFetch.ts`'s SSRF guard). The login and consent steps
 * are the bridge's own (`edge/oauth/`): the operator approves in the inbox. This layer also gives
 * Auth its `BearerTokens`, so a request's access token is checked where a key is.
 */
import { Cause, Clock, Context, Effect, Layer, Option, Runtime, Schedule, Stream } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { generateKeyPairSync } from "node:crypto"
import type { OAuthSection } from "../../config/schema.ts"
import { parseAllowRule, type AllowRule } from "../../domain/a2a/webhookAllow.ts"
import { issuerOf, MAX_PENDING_REGISTRATIONS, OAUTH_PREFIX, OAUTH_RESOURCES, redirectProblem, resourceUrl } from "../../domain/oauth.ts"
import type { Scope } from "../../request/Caller.ts"
import { makeClients } from "../auth/Clients.ts"
import { BearerTokens } from "../auth/BearerTokens.ts"
import { type WebhookResolver } from "../a2aPush/WebhookResolver.ts"
import { guardedFetch } from "./metadataFetch.ts"
import { CREDENTIALS, OAuthStore, OAuthStoreLive, type OAuthStoreShape, type StoredPayload } from "./OAuthStore.ts"
import { CONSUMED_GRACE_MS, type CredentialInfo, makeLiveCredentials, SEEN_TTL_MS } from "./liveCredentials.ts"
import { Redactor } from "../../common/Redactor.ts"
import { ChangeFeed } from "../../storage/ChangeFeed.ts"
import { SqlClient } from "@effect/sql"

/** What the consent page needs of an authorization request in progress. */
export interface PendingAuthorization {
  readonly uid: string
  readonly clientId: string
  readonly clientName: string
  /** The Client ID Metadata Document's host, or "" for a registered client. */
  readonly documentHost: string
  readonly redirectUri: string
  readonly scopes: ReadonlyArray<string>
  readonly resource: string
}

export interface OAuthShape {
  readonly issuer: string
  /** The provider's own endpoints (authorize, token, register, revoke, jwks, metadata). */
  readonly serve: (req: IncomingMessage, res: ServerResponse) => Promise<void>
  /** The request behind an interaction (by the browser's cookie), or undefined when it is gone. */
  readonly pending: (req: IncomingMessage, res: ServerResponse) => Promise<PendingAuthorization | undefined>
  /** Ends the interaction with a grant for `client` (approved) or access_denied: the URL to send the browser to. */
  readonly finish: (req: IncomingMessage, res: ServerResponse, outcome: { readonly client: string; readonly scopes: ReadonlyArray<Scope> } | { readonly denied: string }) => Promise<string>
}

export class OAuth extends Context.Tag("agent-bridge/oauth/OAuth")<OAuth, OAuthShape>() {}

const OUR_SCOPES: ReadonlyArray<Scope> = ["agents", "memory"]

export interface OAuthOptions {
  /** Trusted certificate for Client ID Metadata Document fetches (tests' local HTTPS server). */
  readonly metadataCa?: string | undefined
}

const makeOAuth = (section: OAuthSection, options: OAuthOptions) =>
  Effect.gen(function* () {
    // Loaded here, only now: the package prints a runtime notice on import, and a key-only bridge needs none of it.
    const { default: Provider, errors } = yield* Effect.promise(() => import("oidc-provider"))
    const store = yield* OAuthStore
    const clients = yield* makeClients
    const runtime = yield* Effect.runtime<WebhookResolver | SqlClient.SqlClient>()
    const run = Runtime.runPromise(runtime)
    const issuer = issuerOf(section.issuer)
    const resources = new Set(Object.keys(OAUTH_RESOURCES).map((k) => resourceUrl(issuer, k as keyof typeof OAUTH_RESOURCES)))
    const cookieKey = yield* store.secret("cookie_key")
    const jwk = JSON.parse(yield* signingJwk(store)) as Record<string, unknown>
    const rules = section.client_metadata_allow.map(parseAllowRule).filter((r): r is AllowRule => typeof r !== "string")
    const liveClient = (name: string) =>
      run(Effect.map(Effect.orDie(clients.list), (rows) => rows.some((r) => r.name === name && r.revokedAt === null)))

    // Every credential this process issues or finds is masked in its logs and answers while it may
    // work (liveCredentials.ts): the adapter, which every issue and every look-up passes, says so.
    const live = makeLiveCredentials(yield* Redactor)
    const seen = (model: string, id: string, payload: StoredPayload, expiresIn: number | undefined) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.forEach(credentialsIn(model, id, payload, expiresIn, now), ([value, info]) => live.saw(value, info, now), { discard: true }))
    const liveAccounts = Effect.map(clients.list, (rows) => new Set(rows.filter((r) => r.revokedAt === null).map((r) => r.name)))
    const sweep = Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.flatMap(liveAccounts, (accounts) => live.sweep(now, accounts))).pipe(
      Effect.catchAllCause((cause) => Effect.logWarning(`oauth: could not read the clients to forget revoked credentials: ${Cause.pretty(cause)}`))
    )
    // A client revoked through any replica (the keys topic moves on each) takes its tokens off the
    // list here; expired ones go at least once a minute.
    const feed = yield* ChangeFeed
    yield* Effect.forkScoped(feed.changes("keys").pipe(Stream.runForEach(() => (live.size() > 0 ? sweep : Effect.void))))
    yield* Effect.forkScoped(Effect.repeat(sweep, Schedule.spaced("1 minute")))

    const adapter = (model: string) => ({
      upsert: (id: string, payload: Record<string, unknown>, expiresIn?: number) =>
        run(Effect.zipRight(store.upsert(model, id, payload, expiresIn), seen(model, id, payload, expiresIn))),
      find: (id: string) =>
        run(store.find(model, id).pipe(
          Effect.tap(Option.match({ onNone: () => (CREDENTIALS.has(model) ? live.gone(id) : Effect.void), onSome: (payload) => seen(model, id, payload, undefined) })),
          Effect.map(Option.getOrUndefined)
        )),
      findByUid: (uid: string) => run(Effect.map(store.findByUid(model, uid), Option.getOrUndefined)),
      findByUserCode: (code: string) => run(Effect.map(store.findByUserCode(model, code), Option.getOrUndefined)),
      consume: (id: string) => run(Effect.zipRight(store.consume(model, id), Effect.flatMap(Clock.currentTimeMillis, (now) => live.consumed(id, now)))),
      destroy: (id: string) => run(Effect.zipRight(store.destroy(model, id), model === "Client" ? live.goneClient(id) : live.gone(id))),
      revokeByGrantId: (grantId: string) => run(Effect.zipRight(store.revokeByGrantId(grantId), live.goneGrant(grantId)))
    })

    const provider = new Provider(issuer, {
      adapter: adapter as never,
      jwks: { keys: [jwk] },
      cookies: { keys: [cookieKey] },
      findAccount: async (_ctx: unknown, id: string) => ((await liveClient(id)) ? { accountId: id, claims: async () => ({ sub: id }) } : undefined),
      scopes: ["offline_access", ...OUR_SCOPES],
      responseTypes: ["code"],
      pkce: { required: () => true },
      clientDefaults: { grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none", id_token_signed_response_alg: "ES256" },
      clientAuthMethods: ["none", "client_secret_basic", "client_secret_post"],
      // Every client may refresh; its refresh tokens rotate on use and outlive any browser session.
      issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed: (g: string) => boolean }) => client.grantTypeAllowed("refresh_token"),
      rotateRefreshToken: true,
      expiresWithSession: async () => false,
      ttl: {
        AccessToken: section.access_token_ttl_s,
        AuthorizationCode: 60,
        RefreshToken: section.refresh_token_ttl_days * 86_400,
        Grant: section.refresh_token_ttl_days * 86_400,
        Interaction: section.consent_timeout_s + 60,
        Session: section.consent_timeout_s + 60
      },
      routes: {
        authorization: `${OAUTH_PREFIX}/authorize`,
        token: `${OAUTH_PREFIX}/token`,
        registration: `${OAUTH_PREFIX}/register`,
        revocation: `${OAUTH_PREFIX}/revoke`,
        jwks: `${OAUTH_PREFIX}/jwks`,
        end_session: `${OAUTH_PREFIX}/session/end`,
        userinfo: `${OAUTH_PREFIX}/userinfo`,
        introspection: `${OAUTH_PREFIX}/introspect`,
        pushed_authorization_request: `${OAUTH_PREFIX}/par`,
        code_verification: `${OAUTH_PREFIX}/device`,
        device_authorization: `${OAUTH_PREFIX}/device/auth`,
        backchannel_authentication: `${OAUTH_PREFIX}/backchannel`,
        challenge: `${OAUTH_PREFIX}/challenge`
      },
      interactions: { url: async (_ctx: unknown, interaction: { uid: string }) => `${OAUTH_PREFIX}/interaction/${interaction.uid}` },
      features: {
        devInteractions: { enabled: false },
        // Bearer tokens only: the MCP servers read `Authorization: Bearer` and check no DPoP proof,
        // so a token bound to a DPoP key (the library's default offer) would be served unbound.
        dPoP: { enabled: false },
        userinfo: { enabled: false },
        revocation: { enabled: true },
        registration: { enabled: true },
        clientIdMetadataDocument: { enabled: section.client_metadata_documents, ack: "draft-02" },
        resourceIndicators: {
          enabled: true,
          defaultResource: async (_ctx: unknown, _client: unknown, oneOf?: string | Array<string>) => oneOf ?? resourceUrl(issuer, "agents"),
          useGrantedResource: async () => true,
          getResourceServerInfo: async (_ctx: unknown, resource: string) => {
            if (!resources.has(resource)) throw new errors.InvalidTarget(`${resource} is not a resource of this bridge`)
            return { scope: OUR_SCOPES.join(" "), audience: resource, accessTokenTTL: section.access_token_ttl_s, accessTokenFormat: "opaque" }
          }
        }
      },
      // A registered client names only redirect hosts the operator allows (loopback, the ChatGPT
      // and Claude callbacks, oauth.redirect_hosts); checked at registration only.
      extraClientMetadata: {
        properties: ["software_id"],
        validator: (ctx: { oidc?: { route?: string } } | undefined, _key: string, _value: unknown, metadata: { redirect_uris?: ReadonlyArray<string> }) => {
          if (ctx?.oidc?.route !== "registration") return
          for (const uri of metadata.redirect_uris ?? []) {
            const why = redirectProblem(uri, section.redirect_hosts)
            if (why !== undefined) throw new errors.InvalidRedirectUri(why)
          }
        }
      },
      fetch: guardedFetch(runtime, rules, options.metadataCa) as never,
      renderError: async (ctx: { type: string; body: string }, out: Record<string, string>) => {
        ctx.type = "html"
        ctx.body = `<!doctype html><meta charset="utf-8"><title>Not connected</title><h1>Not connected</h1><p>${escapeHtml(out["error"] ?? "error")}: ${escapeHtml(out["error_description"] ?? "")}</p>`
      }
    } as never)
    // The provider builds its URLs (metadata, redirects to the interaction page) from the request's
    // host and scheme. Those are the issuer's, whatever the request says: a forged X-Forwarded-Host
    // would otherwise name another server's endpoints, and behind a TLS proxy the bridge sees http.
    ;(provider as unknown as { proxy: boolean }).proxy = true
    const issuerUrl = new URL(issuer)
    const asIssuer = (req: IncomingMessage) => {
      req.headers.host = issuerUrl.host
      req.headers["x-forwarded-proto"] = issuerUrl.protocol.slice(0, -1)
      delete req.headers["x-forwarded-host"]
      delete req.headers["x-forwarded-port"]
      return req
    }
    const callback = provider.callback()

    const serve: OAuthShape["serve"] = (req, res) =>
      new Promise<void>((resolve) => {
        res.once("close", () => resolve())
        res.once("finish", () => resolve())
        // RFC 8414's address serves the provider's own metadata document.
        if (req.url?.split("?")[0] === "/.well-known/oauth-authorization-server") req.url = "/.well-known/openid-configuration"
        // Registration is open to anyone who reaches the bridge: bounded by the registrations no
        // approved connection uses yet (they expire unused), before the provider reads the body.
        if (req.method === "POST" && req.url?.split("?")[0] === `${OAUTH_PREFIX}/register`) {
          void run(store.pendingRegistrations).then((n) => {
            if (n < MAX_PENDING_REGISTRATIONS) return void callback(asIssuer(req), res)
            res.writeHead(429, { "content-type": "application/json", "retry-after": "3600", "cache-control": "no-store" })
            res.end(JSON.stringify({
              error: "temporarily_unavailable",
              error_description: `${MAX_PENDING_REGISTRATIONS} client registrations already wait for a connection the operator approves; try again later`
            }))
          }, () => {
            res.writeHead(503, { "content-type": "application/json" })
            res.end(JSON.stringify({ error: "temporarily_unavailable", error_description: "the bridge cannot read its registrations now" }))
          })
          return
        }
        void callback(asIssuer(req), res)
      })

    const pending: OAuthShape["pending"] = async (req, res) => {
      const details = await provider.interactionDetails(asIssuer(req), res).catch(() => undefined)
      if (details === undefined) return undefined
      const params = details.params as Record<string, unknown>
      const clientId = String(params["client_id"] ?? "")
      const client = await provider.Client.find(clientId).catch(() => undefined)
      const metadata = (client?.metadata() ?? {}) as Record<string, unknown>
      const documentHost = /^https:\/\//.test(clientId) ? new URL(clientId).host : ""
      const resource = typeof params["resource"] === "string" ? params["resource"] : resourceUrl(issuer, "agents")
      return {
        uid: details.uid,
        clientId,
        clientName: typeof metadata["client_name"] === "string" && metadata["client_name"].length > 0 ? metadata["client_name"] : documentHost || "unnamed client",
        documentHost,
        redirectUri: String(params["redirect_uri"] ?? ""),
        scopes: String(params["scope"] ?? "").split(" ").filter((s) => s.length > 0),
        resource
      }
    }

    const finish: OAuthShape["finish"] = async (raw, res, outcome) => {
      const req = asIssuer(raw)
      if ("denied" in outcome) {
        return provider.interactionResult(req, res, { error: "access_denied", error_description: outcome.denied }, { mergeWithLastSubmission: false })
      }
      const details = await provider.interactionDetails(req, res)
      const params = details.params as Record<string, unknown>
      const grant = new provider.Grant({ accountId: outcome.client, clientId: String(params["client_id"]) })
      const asked = String(params["scope"] ?? "").split(" ")
      // The scopes asked that the operator granted (and offline_access, for the refresh token), as
      // the provider names them, and the same on the resource the token will be bound to.
      const granted = asked.filter((s) => s === "offline_access" || outcome.scopes.includes(s as Scope))
      if (granted.length > 0) grant.addOIDCScope(granted.join(" "))
      const resource = typeof params["resource"] === "string" ? params["resource"] : resourceUrl(issuer, "agents")
      grant.addResourceScope(resource, OUR_SCOPES.filter((s) => outcome.scopes.includes(s)).join(" "))
      const grantId = await grant.save()
      return provider.interactionResult(req, res, { login: { accountId: outcome.client }, consent: { grantId } }, { mergeWithLastSubmission: false })
    }

    const lookup = (token: string) =>
      Effect.promise(async () => {
        const found = await provider.AccessToken.find(token).catch(() => undefined)
        if (found === undefined || found.isExpired) return Option.none()
        const audience = typeof found.aud === "string" ? [found.aud] : Array.isArray(found.aud) ? (found.aud as Array<string>) : []
        const scopes = String(found.scope ?? "").split(" ").filter((s): s is Scope => s === "agents" || s === "memory")
        return Option.some({ client: String(found.accountId), audience, scopes })
      })

    return { oauth: { issuer, serve, pending, finish } satisfies OAuthShape, bearer: { lookup, refused: live.gone } }
  })

/**
 * The credentials a record of the provider's carries, with how long each may work: a code or token
 * is its own id (until its expiry; a used-up one a minute more at most); a registered client carries
 * its secret (until the secret's own expiry, else a day past this sighting).
 */
const credentialsIn = (model: string, id: string, payload: StoredPayload, expiresIn: number | undefined, now: number): ReadonlyArray<readonly [string, CredentialInfo]> => {
  const seconds = (key: string) => (typeof payload[key] === "number" && (payload[key] as number) > 0 ? (payload[key] as number) * 1000 : undefined)
  const text = (key: string) => (typeof payload[key] === "string" ? (payload[key] as string) : undefined)
  if (CREDENTIALS.has(model)) {
    const expiresAt = expiresIn !== undefined ? now + expiresIn * 1000 : seconds("exp") ?? now + SEEN_TTL_MS
    const consumedAt = seconds("consumed")
    return [[id, {
      expiresAt: consumedAt === undefined ? expiresAt : Math.min(expiresAt, consumedAt + CONSUMED_GRACE_MS),
      grantId: text("grantId"),
      accountId: text("accountId")
    }]]
  }
  const secret = text("client_secret")
  if (model === "Client" && secret !== undefined) return [[secret, { expiresAt: seconds("client_secret_expires_at") ?? now + SEEN_TTL_MS, secretOf: id }]]
  return []
}

/** An EC P-256 signing key (ID tokens, should a client ask for one), made once and shared. */
const signingJwk = (store: OAuthStoreShape) =>
  Effect.gen(function* () {
    const candidate = JSON.stringify({ ...generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "jwk" }), use: "sig", alg: "ES256" })
    return yield* store.secretOr("signing_jwk", candidate)
  })

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/**
 * OAuth's layer for this configuration: nothing at all when `oauth` is absent (no provider, no
 * import, Auth without `BearerTokens`); else the provider, its store and the token check.
 */
export const OAuthFor = (section: OAuthSection | undefined, resolver: Layer.Layer<WebhookResolver>, options: OAuthOptions = {}) =>
  section === undefined
    ? Layer.empty
    : Layer.scopedContext(
      Effect.map(makeOAuth(section, options), ({ oauth, bearer }) => Context.make(OAuth, oauth).pipe(Context.add(BearerTokens, bearer)))
    ).pipe(Layer.provideMerge(OAuthStoreLive), Layer.provide(resolver))
