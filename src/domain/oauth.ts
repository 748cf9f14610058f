/**
 * OAuth's pure rules (docs/REFERENCE.md, "OAuth"): what an issuer may be, the resources the bridge
 * protects under it, the scopes a grant may hold, and which redirect URIs a dynamically registered
 * client may name. No I/O: the authorization server itself is `services/oauth/`.
 */

/** The MCP servers a token may be bound to (RFC 8707 resource indicators), by path. */
export const OAUTH_RESOURCES = { agents: "/mcp/agents/mcp", memory: "/mcp/memory/mcp" } as const
export type OAuthResourceKind = keyof typeof OAUTH_RESOURCES

/** The bridge's scopes, as OAuth scopes: a grant holds `agents` and, when approved, `memory`. */
export const OAUTH_SCOPES = ["agents", "memory"] as const

/**
 * Connection requests waiting for the operator at once, at most: past it a new one is refused
 * (its page says so) until the operator decides or they expire. Registration is open to anyone who
 * reaches the bridge, so this is what keeps a flood of requests out of the inbox.
 */
export const MAX_PENDING_CONSENTS = 32

/**
 * Client registrations (RFC 7591, open to anyone who reaches the bridge) that no connection the
 * operator approved uses yet, at most: past it a new registration is answered 429 until some
 * expire. A registration nobody's approval uses within `REGISTRATION_UNUSED_S` is dropped; the first
 * grant approved for it keeps it. So a client that registers in a loop fills a bounded table.
 */
export const MAX_PENDING_REGISTRATIONS = 256
export const REGISTRATION_UNUSED_S = 86_400

/** Where the authorization server's own endpoints live, under the issuer. */
export const OAUTH_PREFIX = "/oauth"

/**
 * Callback hosts of the web and desktop clients, taken as registrable redirect hosts by default:
 * ChatGPT's (`https://chatgpt.com/connector_platform_oauth_redirect`, formerly on chat.openai.com)
 * and Claude's (`https://claude.ai/api/mcp/auth_callback`, and the same path on claude.com).
 */
export const DEFAULT_REDIRECT_HOSTS = ["chatgpt.com", "chat.openai.com", "claude.ai", "claude.com"] as const

const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"])

export const isLoopbackHost = (hostname: string) => LOOPBACK.has(hostname.toLowerCase())

/** Why `text` cannot be `oauth.issuer`, or undefined when it can. */
export const issuerProblem = (text: string): string | undefined => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return "an absolute URL, https://host[:port]"
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url.hostname))) {
    return "https://host[:port] (plain http only for a loopback host)"
  }
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") return "no user, password, query or fragment"
  if (url.pathname !== "/") return "the base URL only, no path (the endpoints are under /oauth/ and the MCP paths)"
  return undefined
}

/** The issuer as the provider and the metadata spell it: no trailing slash. */
export const issuerOf = (text: string) => new URL(text).origin

/** A resource's URL under the issuer. */
export const resourceUrl = (issuer: string, kind: OAuthResourceKind) => `${issuerOf(issuer)}${OAUTH_RESOURCES[kind]}`

/** The RFC 9728 metadata address of a resource: the well-known prefix before the resource's path. */
export const resourceMetadataPath = (kind: OAuthResourceKind) => `/.well-known/oauth-protected-resource${OAUTH_RESOURCES[kind]}`

const hostMatches = (rule: string, hostname: string) =>
  rule.startsWith("*.") ? hostname.endsWith(rule.slice(1)) : hostname === rule

/**
 * Why a dynamically registered client may not name `uri` as a redirect URI, or undefined: loopback
 * (http or https, any port), or https on a host of the defaults or of `oauth.redirect_hosts`.
 * A Client ID Metadata Document's redirect URIs are not checked against this list: the document's
 * own host speaks for them, and the operator sees both in the inbox.
 */
export const redirectProblem = (uri: string, extraHosts: ReadonlyArray<string>): string | undefined => {
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    return `${uri} is not an absolute URL`
  }
  if (url.hash !== "") return `${uri} carries a fragment`
  const host = url.hostname.toLowerCase()
  if (isLoopbackHost(host)) return url.protocol === "http:" || url.protocol === "https:" ? undefined : `${uri}: loopback redirects are http or https`
  if (url.protocol !== "https:") return `${uri}: a redirect URI off loopback must be https`
  const allowed = [...DEFAULT_REDIRECT_HOSTS, ...extraHosts].some((rule) => hostMatches(rule, host))
  return allowed ? undefined : `${uri}: ${host} is not a redirect host this bridge registers (oauth.redirect_hosts)`
}
