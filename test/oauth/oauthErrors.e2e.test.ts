/**
 * OAuth's refusals, each through the MCP SDK's client flow or the wire it speaks: a wrong PKCE
 * verifier, a code used twice (which also ends what the first use got), an unknown `resource`, an
 * expired access token (and the refresh that follows, rotating), a revoked grant, a redirect URI
 * never registered or not allowed at registration, the operator's denial, and a revoked client
 * ending its tokens and an open call.
 */
import { auth, Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { decideConsent } from "../../src/services/oauth/approve.ts"
import { Consents } from "../../src/services/oauth/Consents.ts"
import { errorTextOf, type TestDaemon } from "../support/daemon.ts"
import { beginAuth, Browser, connectWithOAuth, decideOnPage, MemoryProvider, REDIRECT, startOAuthDaemon, useOAuthDaemon, toRedirect, toWaitingPage } from "./support.ts"

const agentsUrl = (d: TestDaemon) => `${d.url}/mcp/agents/mcp`
const call = (d: TestDaemon, token: string) =>
  fetch(agentsUrl(d), {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } } })
  })

/** The flow up to the code, approved on the page: the provider (verifier saved) and the redirect. */
const codeFor = async (d: TestDaemon, provider = new MemoryProvider()) => {
  const browser = new Browser()
  const interaction = await toWaitingPage(d, browser, await beginAuth(d, provider))
  await decideOnPage(browser, d, interaction, "approve")
  return { provider, back: await toRedirect(d, browser, interaction) }
}

const exchange = (d: TestDaemon, provider: MemoryProvider, back: URL) =>
  auth(provider, { serverUrl: agentsUrl(d), authorizationCode: back.searchParams.get("code")!, iss: back.searchParams.get("iss") ?? undefined } as never)

describe("OAuth refusals", () => {
  let daemon: TestDaemon
  useOAuthDaemon((d) => { daemon = d })

  it("puts the issuer in the authorization response (RFC 9207)", async () => {
    const { back } = await codeFor(daemon)
    expect(back.searchParams.get("iss")).toBe(daemon.url)
  }, 60_000)

  it("refuses a code with the wrong PKCE verifier", async () => {
    const { provider, back } = await codeFor(daemon)
    provider.setCodeVerifier("x".repeat(43))
    await expect(exchange(daemon, provider, back)).rejects.toThrow(/invalid_grant|grant request is invalid/i)
  }, 60_000)

  it("refuses a code used twice, and ends what its first use got", async () => {
    const { provider, back } = await codeFor(daemon)
    expect(await exchange(daemon, provider, back)).toBe("AUTHORIZED")
    const first = provider.tokens().access_token as string
    expect((await call(daemon, first)).status).toBe(200)
    await expect(exchange(daemon, provider, back)).rejects.toThrow(/invalid_grant|grant request is invalid/i)
    expect((await call(daemon, first)).status).toBe(401)
  }, 60_000)

  it("refuses a resource that is not one of the bridge's MCP servers", async () => {
    const provider = new MemoryProvider()
    const url = await beginAuth(daemon, provider)
    url.searchParams.set("resource", "https://elsewhere.example/mcp")
    const { url: landed } = await new Browser().follow(url.href, daemon.url)
    expect(landed.startsWith(REDIRECT)).toBe(true)
    expect(new URL(landed).searchParams.get("error")).toBe("invalid_target")
  }, 60_000)

  it("refuses a redirect URI the client never registered, and registration of one not allowed", async () => {
    const provider = new MemoryProvider()
    const url = await beginAuth(daemon, provider)
    url.searchParams.set("redirect_uri", "http://127.0.0.1:9/other")
    const { res, url: landed } = await new Browser().follow(url.href, daemon.url)
    // Never sent to the unregistered address: the error is the bridge's own page.
    expect(landed.startsWith(daemon.url)).toBe(true)
    expect(res.status).toBe(400)
    expect(await res.text()).toMatch(/redirect_uri/)
    const refused = await fetch(`${daemon.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "x", redirect_uris: ["https://evil.example/cb"], token_endpoint_auth_method: "none" })
    })
    expect(refused.status).toBe(400)
    expect((await refused.json()).error).toBe("invalid_redirect_uri")
    const chatgpt = await fetch(`${daemon.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "ChatGPT", redirect_uris: ["https://chatgpt.com/connector_platform_oauth_redirect"], token_endpoint_auth_method: "none" })
    })
    expect(chatgpt.status).toBe(201)
  }, 60_000)

  it("sends the operator's denial (given in the inbox) back as access_denied", async () => {
    const provider = new MemoryProvider("Denied App")
    const browser = new Browser()
    const interaction = await toWaitingPage(daemon, browser, await beginAuth(daemon, provider))
    const pending = await daemon.use(Effect.flatMap(Consents, (c) => c.pending))
    const row = pending.find((c) => c.client_name === "Denied App")!
    expect(row).toMatchObject({ client_host: "127.0.0.1:9", redirect_host: "127.0.0.1:9", resource: agentsUrl(daemon) })
    await daemon.use(decideConsent(row.id, false, "admin"))
    const back = await toRedirect(daemon, browser, interaction)
    expect(back.searchParams.get("error")).toBe("access_denied")
  }, 60_000)

  it("refuses a wrong admin key on the waiting page and keeps waiting", async () => {
    const browser = new Browser()
    const interaction = await toWaitingPage(daemon, browser, await beginAuth(daemon, new MemoryProvider("Guess")))
    const res = await decideOnPage(browser, daemon, interaction, "approve", "hal0bk_not-the-admin-key-at-all")
    expect(res.status).toBe(200)
    expect(await res.text()).toMatch(/not the admin key/)
  }, 60_000)

  it("ends a grant's tokens when its refresh token is revoked", async () => {
    const provider = await connectWithOAuth(daemon)
    const { access_token, refresh_token } = provider.tokens()
    expect((await call(daemon, access_token)).status).toBe(200)
    const revoked = await fetch(`${daemon.url}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: refresh_token, client_id: provider.clientInformation().client_id }).toString()
    })
    expect(revoked.status).toBe(200)
    expect((await call(daemon, access_token)).status).toBe(401)
  }, 60_000)

  it("ends a client's tokens when the operator revokes the client", async () => {
    const provider = await connectWithOAuth(daemon, new MemoryProvider("Revoked Later"))
    const { access_token } = provider.tokens()
    expect((await call(daemon, access_token)).status).toBe(200)
    await daemon.revoke("revoked-later")
    expect((await call(daemon, access_token)).status).toBe(401)
    // Its refresh token gets nothing either: the account is gone.
    await expect(auth(provider, { serverUrl: agentsUrl(daemon) })).rejects.toThrow(/invalid_grant|grant request is invalid/i)
  }, 60_000)

  it("ends an open call of a client when the operator revokes it, as a key's", async () => {
    const provider = await connectWithOAuth(daemon, new MemoryProvider("Open Work"))
    const client = new Client({ name: "oauth-test", version: "0.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(agentsUrl(daemon)), { authProvider: provider }))
    const started = (await client.callTool({ name: "agent_run", arguments: { agent: "hermes", input: "[sim:slow=30s] keep going" } })).structuredContent as { run_id: string }
    const waiting = client.callTool({ name: "agent_run_wait", arguments: { run_id: started.run_id, timeout_s: 20 } })
    await new Promise((r) => setTimeout(r, 1000))
    await daemon.revoke("open-work")
    const answer = await waiting
    expect(errorTextOf(answer)).toMatch(/auth\.forbidden/)
    await client.close().catch(() => undefined)
  }, 60_000)
})

describe("OAuth with short-lived access tokens", () => {
  let daemon: TestDaemon
  beforeAll(async () => {
    daemon = await startOAuthDaemon({ access_token_ttl_s: 2, consent_timeout_s: 5 })
  }, 60_000)
  afterAll(async () => {
    await daemon?.close()
  })

  it("refuses an expired access token with 401 invalid_token; the refresh gives a new one and rotates", async () => {
    const provider = await connectWithOAuth(daemon)
    const { access_token, refresh_token } = provider.tokens()
    await new Promise((r) => setTimeout(r, 3000))
    const expired = await call(daemon, access_token)
    expect(expired.status).toBe(401)
    expect(expired.headers.get("www-authenticate")).toMatch(/error="invalid_token"/)
    expect(await auth(provider, { serverUrl: agentsUrl(daemon) })).toBe("AUTHORIZED")
    const renewed = provider.tokens()
    expect(renewed.access_token).not.toBe(access_token)
    expect(renewed.refresh_token).not.toBe(refresh_token)
    expect((await call(daemon, renewed.access_token)).status).toBe(200)
  }, 60_000)

  it("expires a request the operator does not decide in time: the client gets access_denied", async () => {
    const browser = new Browser()
    const interaction = await toWaitingPage(daemon, browser, await beginAuth(daemon, new MemoryProvider("Too Late")))
    await new Promise((r) => setTimeout(r, 6000))
    const back = await toRedirect(daemon, browser, interaction)
    expect(back.searchParams.get("error")).toBe("access_denied")
    const rows = await daemon.use(Effect.flatMap(Consents, (c) => c.pending))
    expect(rows.filter((r) => r.client_name === "Too Late")).toEqual([])
  }, 60_000)

  it("answers an interaction it does not know (no cookie, or gone) with a page saying so", async () => {
    const res = await fetch(`${daemon.url}/oauth/interaction/unknownuid`)
    expect(res.status).toBe(400)
    expect(await res.text()).toMatch(/ended or expired/)
    const put = await fetch(`${daemon.url}/oauth/interaction/unknownuid`, { method: "PUT" })
    expect(put.status).toBe(405)
  })
})

/** A form POST to one of the provider's endpoints: status and JSON body. */
const form = async (d: TestDaemon, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) => {
  const res = await fetch(`${d.url}${path}`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body: new URLSearchParams(fields).toString() })
  const text = await res.text()
  return { status: res.status, body: (text.startsWith("{") ? JSON.parse(text) : { text }) as Record<string, string> }
}

const register = async (d: TestDaemon, metadata: Record<string, unknown>) => {
  const res = await fetch(`${d.url}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(metadata) })
  return { status: res.status, body: await res.json() as Record<string, string> }
}

describe("OAuth refusals as REFERENCE.md lists them", () => {
  let daemon: TestDaemon
  useOAuthDaemon((d) => { daemon = d })

  it("sends an authorization request without PKCE back to the client as invalid_request", async () => {
    const { body: client } = await register(daemon, { client_name: "No PKCE", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" })
    const url = new URL(`${daemon.url}/oauth/authorize`)
    for (const [k, v] of Object.entries({ response_type: "code", client_id: client["client_id"]!, redirect_uri: REDIRECT, scope: "agents", state: "s1", resource: agentsUrl(daemon) })) url.searchParams.set(k, v)
    const { url: landed } = await new Browser().follow(url.href, daemon.url)
    expect(landed.startsWith(REDIRECT), landed).toBe(true)
    const back = new URL(landed)
    expect(back.searchParams.get("error")).toBe("invalid_request")
    expect(back.searchParams.get("state")).toBe("s1")
    expect(back.searchParams.get("iss")).toBe(daemon.url)
  }, 60_000)

  it("refuses a code exchanged for the other MCP server with invalid_target", async () => {
    const { provider, back } = await codeFor(daemon)
    const res = await form(daemon, "/oauth/token", {
      grant_type: "authorization_code", code: back.searchParams.get("code")!, code_verifier: provider.codeVerifier(),
      redirect_uri: REDIRECT, client_id: provider.clientInformation().client_id, resource: `${daemon.url}/mcp/memory/mcp`
    })
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(res.body["error"]).toBe("invalid_target")
  }, 60_000)

  it("refuses a registered client's wrong secret with 401 invalid_client, and metadata it cannot take with invalid_client_metadata", async () => {
    const { status, body: client } = await register(daemon, { client_name: "Confidential", redirect_uris: [REDIRECT], token_endpoint_auth_method: "client_secret_basic" })
    expect(status).toBe(201)
    const basic = Buffer.from(`${encodeURIComponent(client["client_id"]!)}:${encodeURIComponent("not-the-secret")}`).toString("base64")
    const res = await form(daemon, "/oauth/token", { grant_type: "refresh_token", refresh_token: "x".repeat(43) }, { authorization: `Basic ${basic}` })
    expect(res.status, JSON.stringify(res.body)).toBe(401)
    expect(res.body["error"]).toBe("invalid_client")
    const bad = await register(daemon, { client_name: "Implicit", redirect_uris: [REDIRECT], response_types: ["token"], grant_types: ["implicit"] })
    expect(bad.status, JSON.stringify(bad.body)).toBe(400)
    expect(bad.body["error"]).toBe("invalid_client_metadata")
  }, 60_000)

  it("answers a revocation of a token it never issued with 200, and a refresh token it does not know with invalid_grant", async () => {
    const { body: client } = await register(daemon, { client_name: "Public", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" })
    const revoked = await form(daemon, "/oauth/revoke", { token: "y".repeat(43), client_id: client["client_id"]! })
    expect(revoked.status).toBe(200)
    const refreshed = await form(daemon, "/oauth/token", { grant_type: "refresh_token", refresh_token: "z".repeat(43), client_id: client["client_id"]! })
    expect(refreshed.status).toBe(400)
    expect(refreshed.body["error"]).toBe("invalid_grant")
  }, 60_000)

  it("serves no endpoint of a flow it does not offer", async () => {
    for (const path of ["/oauth/userinfo", "/oauth/introspect", "/oauth/device/auth", "/oauth/backchannel"]) {
      expect((await fetch(`${daemon.url}${path}`, { method: "POST" })).status, path).toBe(404)
    }
  })
})
