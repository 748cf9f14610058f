/**
 * OAuth end to end (docs/REFERENCE.md, "OAuth"), with the MCP SDK's own client flow: discovery from
 * the 401, Dynamic Client Registration, authorization with PKCE S256 and `resource`, the operator's
 * approval, the code exchanged, then MCP calls with the access token; and the refusals.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { TestDaemon } from "../support/daemon.ts"
import { connectWithOAuth, MemoryProvider, startOAuthDaemon } from "./support.ts"

const mcpWith = async (daemon: TestDaemon, token: string, server = "agents") => {
  const client = new Client({ name: "oauth-test", version: "0.0.0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${daemon.url}/mcp/${server}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }))
  return client
}

describe("OAuth on", () => {
  let daemon: TestDaemon
  beforeAll(async () => {
    daemon = await startOAuthDaemon()
  }, 60_000)
  afterAll(async () => {
    await daemon?.close()
  })

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
  })

  it("connects a client approved on the page, which then calls tools as its own bridge client", async () => {
    const provider = await connectWithOAuth(daemon, new MemoryProvider("ChatGPT"))
    const tokens = provider.tokens()
    expect(tokens.refresh_token).toBeDefined()
    const client = await mcpWith(daemon, tokens.access_token)
    const listed = await client.callTool({ name: "agents_list", arguments: {} })
    expect(listed.isError).not.toBe(true)
    await client.close()
    const clients = await daemon.use((await import("../../src/services/auth/Auth.ts")).Auth.pipe((e) => e.pipe((x: any) => x))) as any
    const rows = await daemon.use(clients.listClients)
    const made = rows.find((r: any) => r.name === "chatgpt")
    expect(made?.via).toEqual({ kind: "oauth", client_id: provider.clientInformation().client_id, host: "127.0.0.1:9" })
    // The token is bound to the agents server: the memory server refuses it.
    const memory = await fetch(`${daemon.url}/mcp/memory/mcp`, { method: "POST", body: "{}", headers: { authorization: `Bearer ${tokens.access_token}` } })
    expect(memory.status).toBe(401)
  }, 60_000)
})
