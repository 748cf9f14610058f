/**
 * OAuth on a team deployment: two `agent-bridge serve` replicas on one PostgreSQL behind Debian's
 * nginx configured with docs/DEPLOY.md's block as written (`startFleet`), both with nginx's address
 * as `oauth.issuer`. The whole authorization-code + PKCE flow goes through nginx with the MCP SDK's
 * own OAuth client (`auth`, then the transport's `authProvider`), each step steered by nginx's
 * round-robin to the other replica than the step before: the authorization request, the operator's
 * approval in the inbox, the browser's return (where the code is issued), the token exchange and the
 * MCP calls (nginx's access log says which replica answered each). Then the operator revokes the
 * client on the console, through nginx: its access token is refused by each replica, asked
 * directly, within 3 s, and its refresh token too.
 */
import { auth, Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { afterAll, describe, expect, it } from "vitest"
import { type Fleet, startFleet } from "../support/fleet.ts"
import { freeLoopbackPort } from "../support/freePort.ts"
import type { Nginx } from "../support/nginx.ts"
import { usePostgres } from "../support/postgres.ts"
import { makeClient } from "../inbox/fetchClient.ts"
import { Browser, MemoryProvider, REDIRECT } from "./support.ts"

const REPLICAS = 2

/** The replica that answered the last request nginx passed (its log is written before the answer ends). */
const lastUpstream = (proxy: Nginx) => proxy.passed().at(-1)?.upstreams.at(-1)

/**
 * Makes the next request through nginx land on another replica than `not`: with two replicas and
 * round-robin, the next request goes to the one the last did not; a small static request moves it on.
 */
const steerAwayFrom = async (proxy: Nginx, not: string) => {
  for (let i = 0; i < 4 && lastUpstream(proxy) !== not; i++) {
    const before = proxy.passed().length
    const res = await fetch(`${proxy.url}/inbox/static/inbox.css`)
    expect(res.status).toBe(200)
    await res.text()
    await expect.poll(() => proxy.passed().length, { timeout: 5_000, interval: 20 }).toBeGreaterThan(before)
  }
  expect(lastUpstream(proxy)).toBe(not)
}

/** The replica that answered the last request for `path` with `method` (waiting for nginx's log line). */
const answeredBy = async (proxy: Nginx, method: string, path: string | RegExp) => {
  const find = () => [...proxy.passed()].reverse().find((r) => r.method === method && (typeof path === "string" ? r.path === path : path.test(r.path)))
  await expect.poll(find, { timeout: 5_000, interval: 20, message: `${method} ${String(path)} passed nginx` }).toBeDefined()
  return find()!.upstreams.at(-1)!
}

/** An MCP `initialize` straight to one replica with `token`: its status. */
const statusAt = async (url: string, token: string) => {
  const res = await fetch(`${url}/mcp/agents/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "probe", version: "0" } } })
  })
  await res.body?.cancel()
  return res.status
}

describe("OAuth through nginx across two replicas", () => {
  const pg = usePostgres()
  let fleet: Fleet | undefined
  afterAll(async () => {
    await fleet?.stop()
  }, 60_000)

  it("authorizes, approves, redeems and calls on alternating replicas; a revoke on the console ends the token on both within 3 s", async (ctx) => {
    const storageUrl = await pg.database(ctx)
    const nginxPort = await freeLoopbackPort()
    const issuer = `http://127.0.0.1:${nginxPort}`
    fleet = await startFleet({ storageUrl, replicas: REPLICAS, nginxPort, config: { oauth: { issuer } } })
    const proxy = fleet.nginx()
    const serverUrl = `${issuer}/mcp/agents/mcp`
    const [r0, r1] = fleet.replicas.map((r) => r.address) as [string, string]
    const other = (address: string) => (address === r0 ? r1 : r0)

    // Discovery and registration, as the SDK does them, all through nginx.
    const provider = new MemoryProvider("Team App")
    expect(await auth(provider, { serverUrl })).toBe("REDIRECT")
    const browser = new Browser()

    // The authorization request lands on one replica, which starts the interaction.
    const authorize = await browser.go(provider.redirected!.href)
    expect(authorize.status, await authorize.clone().text()).toBeGreaterThanOrEqual(300)
    const authorizedAt = await answeredBy(proxy, "GET", "/oauth/authorize")
    const interaction = new URL(authorize.headers.get("location")!, issuer).href
    expect(interaction).toMatch(/\/oauth\/interaction\//)
    const waiting = await browser.go(interaction)
    expect(waiting.status).toBe(200)
    expect(await waiting.text()).toMatch(/<strong>Team App<\/strong>/)

    // The operator approves in the inbox, on the other replica.
    const operator = makeClient(issuer)
    expect((await operator.signIn(fleet.adminKey)).status).toBe(303)
    const inbox = await operator.send("GET", "/inbox")
    const id = /data-connection="([^"]+)"/.exec(inbox.body)?.[1]
    expect(id, inbox.body.slice(0, 2000)).toBeDefined()
    await steerAwayFrom(proxy, authorizedAt)
    const decided = await operator.send("POST", `/inbox/connect/${id}`, { csrf: operator.csrfOf(inbox.body), decision: "approve" })
    expect(decided.status).toBe(303)
    const approvedAt = await answeredBy(proxy, "POST", `/inbox/connect/${id}`)
    expect(approvedAt).toBe(other(authorizedAt))

    // The browser comes back: the interaction finishes, the authorization resumes and issues the code.
    const { url: back } = await browser.follow(interaction, issuer)
    expect(back.startsWith(REDIRECT), back).toBe(true)
    const codeAt = await answeredBy(proxy, "GET", /^\/oauth\/authorize\/./)
    const returned = new URL(back)
    expect(returned.searchParams.get("iss")).toBe(issuer)

    // The code is redeemed at the replica that did not issue it.
    await steerAwayFrom(proxy, codeAt)
    expect(await auth(provider, { serverUrl, authorizationCode: returned.searchParams.get("code")!, iss: returned.searchParams.get("iss")! } as never)).toBe("AUTHORIZED")
    const tokenAt = await answeredBy(proxy, "POST", "/oauth/token")
    expect(tokenAt).toBe(other(codeAt))

    // MCP calls through nginx with the token, on both replicas, the first on the other one than the exchange.
    await steerAwayFrom(proxy, tokenAt)
    const mark = proxy.passed().length
    const client = new Client({ name: "team", version: "0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }))
    for (let i = 0; i < 4; i++) {
      const listed = await client.callTool({ name: "agents_list", arguments: {} })
      expect(listed.isError, JSON.stringify(listed)).not.toBe(true)
    }
    const calls = proxy.passed().slice(mark).filter((r) => r.method === "POST" && r.path === "/mcp/agents/mcp")
    expect(calls.length).toBeGreaterThanOrEqual(4)
    expect(calls.map((r) => r.status).filter((s) => s !== 200 && s !== 202), JSON.stringify(calls)).toEqual([])
    expect(calls[0]!.upstreams.at(-1)).toBe(other(tokenAt))
    expect(new Set(calls.map((r) => r.upstreams.at(-1)))).toEqual(new Set([r0, r1]))
    await client.close()

    // Revoked on the console through nginx: each replica, asked directly, refuses the token within 3 s.
    const { access_token: access, refresh_token: refresh } = provider.tokens() as { access_token: string; refresh_token: string }
    for (const replica of fleet.replicas) expect(await statusAt(replica.url, access), replica.name).toBe(200)
    const clients = await operator.send("GET", "/inbox/clients")
    expect(clients.body).toMatch(/team-app/)
    const revoked = await operator.send("POST", "/inbox/clients/team-app", { csrf: operator.csrfOf(clients.body), action: "revoke" })
    expect(revoked.status, revoked.body).toBe(303)
    const t0 = Date.now()
    const refusedIn = await Promise.all(fleet.replicas.map(async (replica) => {
      for (;;) {
        const status = await statusAt(replica.url, access)
        if (status === 401) return Date.now() - t0
        expect(status).toBe(200)
        if (Date.now() - t0 > 10_000) throw new Error(`${replica.name} still served the revoked client's token after 10 s`)
        await new Promise((r) => setTimeout(r, 100))
      }
    }))
    for (const took of refusedIn) expect(took).toBeLessThan(3_000)
    // Its refresh token gets nothing, through nginx, whichever replica answers.
    for (let i = 0; i < REPLICAS; i++) {
      const res = await fetch(`${issuer}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refresh, client_id: provider.clientInformation().client_id, resource: serverUrl }).toString()
      })
      expect(res.status).toBe(400)
      expect((await res.json() as { error: string }).error).toBe("invalid_grant")
    }
  }, 600_000)
})
