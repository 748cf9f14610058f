/**
 * OAuth end to end (docs/REFERENCE.md, "OAuth"), with the MCP SDK's own client flow: discovery from
 * the 401, Dynamic Client Registration, authorization with PKCE S256 and `resource`, the operator's
 * approval, the code exchanged, then MCP calls with the access token; and the refusals.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { Auth } from "../../src/services/auth/Auth.ts"
import { clientCommand } from "../../src/cli/client.ts"
import { describe, expect, it } from "vitest"
import type { TestDaemon } from "../support/daemon.ts"
import { auth } from "@modelcontextprotocol/client"
import { makeClient } from "../inbox/fetchClient.ts"
import { beginAuth, Browser, connectWithOAuth, MemoryProvider, useOAuthDaemon, toRedirect, toWaitingPage } from "./support.ts"

const mcpWith = async (daemon: TestDaemon, token: string, server = "agents") => {
  const client = new Client({ name: "oauth-test", version: "0.0.0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${daemon.url}/mcp/${server}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }))
  return client
}

describe("OAuth on", () => {
  let daemon: TestDaemon
  useOAuthDaemon((d) => { daemon = d })

  it("answers no credentials with 401 and the resource metadata; a wrong key stays 403", async () => {
    const none = await fetch(`${daemon.url}/mcp/agents/mcp`, { method: "POST", body: "{}" })
    expect(none.status).toBe(401)
    expect(none.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${daemon.url}/.well-known/oauth-protected-resource/mcp/agents/mcp"`)
    const wrong = await fetch(`${daemon.url}/mcp/agents/mcp`, { method: "POST", body: "{}", headers: { authorization: "Bearer hal0bk_0000000000000000000000000000000000000000000" } })
    expect(wrong.status).toBe(403)
    expect((await wrong.json()).error.code).toBe("auth.forbidden")
    const prm = await (await fetch(`${daemon.url}/.well-known/oauth-protected-resource/mcp/memory/mcp`)).json()
    expect(prm.resource).toBe(`${daemon.url}/mcp/memory/mcp`)
    expect(prm.authorization_servers).toEqual([daemon.url])
    const as = await (await fetch(`${daemon.url}/.well-known/oauth-authorization-server`)).json()
    expect(as.issuer).toBe(daemon.url)
    expect(as.code_challenge_methods_supported).toEqual(["S256"])
    expect(as.authorization_response_iss_parameter_supported).toBe(true)
    expect(as.client_id_metadata_document_supported).toBe(true)
    expect(as.token_endpoint_auth_methods_supported).toContain("none")
    expect(as.revocation_endpoint).toBe(`${daemon.url}/oauth/revoke`)
    // Bearer tokens only: the MCP servers take no DPoP proof, so no token is bound to one.
    expect(as.dpop_signing_alg_values_supported).toBeUndefined()
    expect((await (await fetch(`${daemon.url}/.well-known/openid-configuration`)).json()).issuer).toBe(daemon.url)
    // Endpoints are the issuer's, whatever a request's forwarding headers claim.
    const forged = await (await fetch(`${daemon.url}/.well-known/oauth-authorization-server`, { headers: { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" } })).json()
    expect(forged.authorization_endpoint).toBe(`${daemon.url}/oauth/authorize`)
    expect(forged.token_endpoint).toBe(`${daemon.url}/oauth/token`)
  })

  it("connects a client approved on the page, which then calls tools as its own bridge client", async () => {
    const provider = await connectWithOAuth(daemon, new MemoryProvider("ChatGPT"))
    const tokens = provider.tokens()
    expect(tokens.refresh_token).toBeDefined()
    const client = await mcpWith(daemon, tokens.access_token)
    const listed = await client.callTool({ name: "agents_list", arguments: {} })
    expect(listed.isError).not.toBe(true)
    await client.close()
    const rows = await daemon.use(Effect.flatMap(Auth, (a) => a.listClients))
    const made = rows.find((r) => r.name === "chatgpt")
    expect(made?.via).toEqual({ kind: "oauth", client_id: provider.clientInformation().client_id, host: "127.0.0.1:9" })
    // The store holds no token that works: ids are digests, payloads name no token value.
    const stored = await daemon.use(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT * FROM oauth_store`))
    const dump = JSON.stringify(stored)
    expect(stored.length).toBeGreaterThan(0)
    expect(dump).not.toContain(tokens.access_token)
    expect(dump).not.toContain(tokens.refresh_token)
    expect(dump).not.toContain(provider.lastCode)
    // The token is bound to the agents server: the memory server refuses it.
    const memory = await fetch(`${daemon.url}/mcp/memory/mcp`, { method: "POST", body: "{}", headers: { authorization: `Bearer ${tokens.access_token}` } })
    expect(memory.status).toBe(401)
  }, 60_000)

  it("shows the request in the inbox, where the operator approves it; the client is listed as connected with OAuth", async () => {
    const provider = new MemoryProvider("Claude")
    const browser = new Browser()
    const interaction = await toWaitingPage(daemon, browser, await beginAuth(daemon, provider, "memory"))
    const waiting = await (await browser.go(interaction)).text()
    expect(waiting).toMatch(/<strong>Claude<\/strong> \(127\.0\.0\.1:9\) asks to connect as a client of this bridge/)
    const operator = makeClient(daemon.url)
    await operator.signIn(daemon.adminKey)
    const inbox = await operator.send("GET", "/inbox")
    expect(inbox.body).toMatch(/Connection requests/)
    expect(inbox.body).toMatch(/<strong>Claude<\/strong> \(127\.0\.0\.1:9\) asks to connect/)
    const id = /data-connection="([^"]+)"/.exec(inbox.body)![1]!
    const decided = await operator.send("POST", `/inbox/connect/${id}`, { csrf: operator.csrfOf(inbox.body), decision: "approve" })
    expect(decided.status).toBe(303)
    const back = await toRedirect(daemon, browser, interaction)
    expect(await auth(provider, { serverUrl: `${daemon.url}/mcp/memory/mcp`, authorizationCode: back.searchParams.get("code")!, iss: back.searchParams.get("iss")! } as never)).toBe("AUTHORIZED")
    // Asked for the memory server: the client has the memory scope, and the token serves memory only.
    const rows = await daemon.use(Effect.flatMap(Auth, (a) => a.listClients))
    expect(rows.find((r) => r.name === "claude")).toMatchObject({ scopes: ["agents", "memory"], via: { kind: "oauth", host: "127.0.0.1:9" } })
    const memory = await mcpWith(daemon, provider.tokens().access_token, "memory")
    expect((await memory.listTools()).tools.length).toBeGreaterThan(0)
    await memory.close()
    const agents = await fetch(`${daemon.url}/mcp/agents/mcp`, { method: "POST", body: "{}", headers: { authorization: `Bearer ${provider.tokens().access_token}` } })
    expect(agents.status).toBe(401)
    // A second decision on the same request finds nothing pending: nothing happens.
    const again = await operator.send("POST", `/inbox/connect/${id}`, { csrf: operator.csrfOf(inbox.body), decision: "deny" })
    expect(again.status).toBe(303)
    // The console's Clients page and `client list` say how it connected.
    const page = await operator.send("GET", "/inbox/clients")
    expect(page.body).toMatch(/OAuth from 127\.0\.0\.1:9/)
    const listed = await daemon.use(clientCommand(daemon.config, { positionals: ["client", "list"], flags: new Map() }))
    expect(listed).toMatch(/^NAME .* VIA$/m)
    expect(listed).toMatch(/^claude .*oauth \(127\.0\.0\.1:9\)$/m)
    const rotate = await daemon.use(Effect.either(clientCommand(daemon.config, { positionals: ["client", "rotate", "claude"], flags: new Map() })))
    expect(rotate._tag === "Left" && (rotate.left as { message: string }).message).toMatch(/connected with OAuth/)
  }, 60_000)

  it("refuses a connection decision without the inbox session or its CSRF token", async () => {
    const stranger = makeClient(daemon.url)
    const res = await stranger.send("POST", "/inbox/connect/abc", { csrf: "x", decision: "approve" })
    expect(res.status).toBe(403)
    const operator = makeClient(daemon.url)
    await operator.signIn(daemon.adminKey)
    const stale = await operator.send("POST", "/inbox/connect/abc", { csrf: "wrong", decision: "approve" })
    expect(stale.status).toBe(403)
  })

  it("moves the inbox page's live updates when a connection request arrives", async () => {
    const operator = makeClient(daemon.url)
    await operator.signIn(daemon.adminKey)
    const controller = new AbortController()
    const res = await fetch(`${daemon.url}/inbox/events`, { headers: { cookie: operator.cookies() }, signal: controller.signal })
    const reader = res.body!.getReader()
    const decoder = new TextDecoder()
    let text = ""
    const events = () => text.split("\n").filter((l) => l.startsWith("event: inbox")).length
    const until = async (n: number) => {
      const deadline = Date.now() + 15_000
      while (events() < n) {
        if (Date.now() > deadline) throw new Error(`no ${n}th inbox event:\n${text}`)
        const { value, done } = await reader.read()
        if (done) throw new Error(`stream ended:\n${text}`)
        text += decoder.decode(value, { stream: true })
      }
    }
    await until(1)
    await toWaitingPage(daemon, new Browser(), await beginAuth(daemon, new MemoryProvider("Live Update")))
    await until(2)
    controller.abort()
  }, 60_000)
})
