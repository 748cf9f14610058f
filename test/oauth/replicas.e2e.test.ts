/**
 * OAuth over two daemons on one database (one SQLite file, or one PostgreSQL database in the pg
 * project), both with the same issuer as replicas behind one proxy would be: a code issued through
 * one is redeemed at the other, its token and refresh token work at either, and revoking the client
 * through one ends its token and its open call on the other.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { Redactor } from "../../src/common/Redactor.ts"
import { MASK } from "../../src/domain/redact/redact.ts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { errorTextOf, startDaemon, tempDir, type TestDaemon, testConfig } from "../support/daemon.ts"
import { freeLoopbackPort } from "../support/freePort.ts"
import { beginAuth, Browser, decideOnPage, MemoryProvider, REDIRECT, toRedirect, toWaitingPage } from "./support.ts"

const token = async (at: TestDaemon, form: Record<string, string>) => {
  const res = await fetch(`${at.url}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(form).toString() })
  return { status: res.status, body: await res.json() as Record<string, string> }
}

/** True when the daemon's Redactor masks `value` by value alone. */
const masked = (at: TestDaemon, value: string) => at.use(Effect.map(Redactor, (r) => r.text(`got ${value} here`) === `got ${MASK} here`))

describe("OAuth across replicas on one database", () => {
  let a: TestDaemon
  let b: TestDaemon
  beforeAll(async () => {
    const dir = tempDir()
    const [pa, pb] = [await freeLoopbackPort(), await freeLoopbackPort()]
    const oauth = { issuer: `http://127.0.0.1:${pa}` }
    a = await startDaemon(testConfig({ bridge: { port: pa }, cluster: { port: 0 }, oauth }, dir))
    b = await startDaemon(testConfig({ bridge: { port: pb }, cluster: { port: 0 }, oauth }, dir))
  }, 90_000)
  afterAll(async () => {
    await b?.close()
    await a?.close()
  })

  it("redeems at one replica a code issued through the other; the tokens work at both; a revoke through one ends them on the other", async () => {
    const provider = new MemoryProvider("Fleet App")
    const browser = new Browser()
    const interaction = await toWaitingPage(a, browser, await beginAuth(a, provider))
    await decideOnPage(browser, a, interaction, "approve")
    const back = await toRedirect(a, browser, interaction)
    const clientId = provider.clientInformation().client_id as string
    const resource = `${a.url}/mcp/agents/mcp`
    const redeemed = await token(b, {
      grant_type: "authorization_code", code: back.searchParams.get("code")!, code_verifier: provider.codeVerifier(),
      redirect_uri: REDIRECT, client_id: clientId, resource
    })
    expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(200)
    const refreshed = await token(a, { grant_type: "refresh_token", refresh_token: redeemed.body["refresh_token"]!, client_id: clientId, resource })
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200)
    expect(refreshed.body["refresh_token"]).not.toBe(redeemed.body["refresh_token"])
    // Each replica masks what it issued and what was presented to it: the code where it was issued
    // (A) and where it was redeemed (B), the first tokens at B, the refresh token presented to A.
    const code = back.searchParams.get("code")!
    expect(await Promise.all([masked(a, code), masked(b, code), masked(b, redeemed.body["access_token"]!), masked(a, redeemed.body["refresh_token"]!)])).toEqual([true, true, true, true])
    expect(await masked(b, refreshed.body["access_token"]!)).toBe(false)

    const client = new Client({ name: "fleet", version: "0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${b.url}/mcp/agents/mcp`), { requestInit: { headers: { Authorization: `Bearer ${refreshed.body["access_token"]}` } } }))
    const started = (await client.callTool({ name: "agent_run", arguments: { agent: "hermes", input: "[sim:slow=30s] keep going" } })).structuredContent as { run_id: string }
    expect(await masked(b, refreshed.body["access_token"]!)).toBe(true)
    const waiting = client.callTool({ name: "agent_run_wait", arguments: { run_id: started.run_id, timeout_s: 20 } })
    await new Promise((r) => setTimeout(r, 1000))
    await a.revoke("fleet-app")
    // Bounded generously: the other daemon hears the commit through its change feed. A wait that
    // had not reached B yet (a loaded machine) is refused there instead: 401, the token is dead.
    const answer = await Promise.race([
      waiting.then(errorTextOf, (e: Error) => e.message),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("the open call did not end")), 10_000))
    ])
    expect(answer).toMatch(/auth\.forbidden|auth\.unauthorized/)
    // B found the token when it was presented; the revoke through A takes it off B's list too.
    await expect.poll(() => masked(b, refreshed.body["access_token"]!), { timeout: 10_000 }).toBe(false)
    await client.close().catch(() => undefined)
  }, 90_000)
})
