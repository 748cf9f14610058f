/**
 * OAuth's credentials are never in a log or an answer: every access token, refresh token,
 * authorization code, client secret and registration access token the bridge issues, or finds when
 * one is presented, is on the Redactor's mask list by value (`services/oauth/liveTokens.ts`), the
 * same list the logger and every tool answer go through; off it again when the credential is
 * revoked, its client revoked, or it expires.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect, Logger } from "effect"
import { describe, expect, it } from "vitest"
import { Redactor } from "../../src/common/Redactor.ts"
import { redactedLogger } from "../../src/daemon/logging.ts"
import { MASK } from "../../src/domain/redact/redact.ts"
import type { TestDaemon } from "../support/daemon.ts"
import { connectWithOAuth, MemoryProvider, REDIRECT, useOAuthDaemon } from "./support.ts"

/** True when the daemon's Redactor masks `value` by value alone, in a sentence. */
const masked = (daemon: TestDaemon, value: string) =>
  daemon.use(Effect.map(Redactor, (r) => r.text(`got ${value} here`) === `got ${MASK} here`))

/** What the daemon's logger (its line formatter through its Redactor) prints for `message`. */
const logged = (daemon: TestDaemon, message: string) =>
  daemon.use(Effect.gen(function* () {
    const redactor = yield* Redactor
    const lines: Array<string> = []
    const capture = Logger.map(redactedLogger("json", (line) => redactor.text(line)), (line) => lines.push(line))
    yield* Effect.logError(message).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, capture)))
    return lines.join("\n")
  }))

describe("OAuth credentials on the mask list", () => {
  let daemon: TestDaemon
  useOAuthDaemon((d) => { daemon = d })

  it("masks the access token, the refresh token and the code of a flow in a log line and in a run's answer; revoked, they go", async () => {
    const provider = await connectWithOAuth(daemon, new MemoryProvider("Masked App"))
    const { access_token: access, refresh_token: refresh } = provider.tokens() as { access_token: string; refresh_token: string }
    const code = provider.lastCode!
    for (const value of [access, refresh, code]) {
      expect(value.length).toBeGreaterThan(20)
      expect(await masked(daemon, value), value).toBe(true)
    }
    const line = await logged(daemon, `token exchange failed for code=${code} with ${access} and refresh ${refresh}`)
    expect(line).toContain(MASK)
    for (const value of [access, refresh, code]) expect(line).not.toContain(value.slice(0, 12))

    // An answer that carries one (the simulator repeats its input) is masked too.
    const client = new Client({ name: "masked", version: "0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${daemon.url}/mcp/agents/mcp`), { requestInit: { headers: { Authorization: `Bearer ${access}` } } }))
    const started = (await client.callTool({ name: "agent_run", arguments: { agent: "hermes", input: `print ${refresh} please` } })).structuredContent as { run_id: string }
    const waited = await client.callTool({ name: "agent_run_wait", arguments: { run_id: started.run_id, timeout_s: 30 } })
    const text = JSON.stringify(waited)
    expect(text).toContain("REDACTED")
    expect(text).not.toContain(refresh.slice(0, 12))
    await client.close()

    // Refreshed: the new pair is masked; the refresh token used up goes within its grace minute.
    const res = await fetch(`${daemon.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refresh, client_id: provider.clientInformation().client_id, resource: `${daemon.url}/mcp/agents/mcp` }).toString()
    })
    const next = await res.json() as Record<string, string>
    expect(res.status, JSON.stringify(next)).toBe(200)
    expect(await masked(daemon, next["access_token"]!)).toBe(true)
    expect(await masked(daemon, next["refresh_token"]!)).toBe(true)

    // The client revoked: its tokens are nobody's secret any more, and leave the list.
    await daemon.revoke("masked-app")
    await expect.poll(() => masked(daemon, next["refresh_token"]!), { timeout: 10_000 }).toBe(false)
    expect(await masked(daemon, next["access_token"]!)).toBe(false)
    expect(await masked(daemon, access)).toBe(false)
  }, 90_000)

  it("masks a registered client's secret and registration access token", async () => {
    const res = await fetch(`${daemon.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Confidential", redirect_uris: [REDIRECT], token_endpoint_auth_method: "client_secret_basic" })
    })
    const registered = await res.json() as Record<string, string>
    expect(res.status, JSON.stringify(registered)).toBe(201)
    const secret = registered["client_secret"]!
    expect(secret.length).toBeGreaterThan(20)
    expect(await masked(daemon, secret)).toBe(true)
    const line = await logged(daemon, `client authentication failed: ${secret}`)
    expect(line).not.toContain(secret.slice(0, 12))
    const rat = registered["registration_access_token"]
    if (rat !== undefined) expect(await masked(daemon, rat)).toBe(true)
  }, 30_000)
})
