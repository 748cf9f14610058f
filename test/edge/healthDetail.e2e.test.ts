/**
 * Unauthenticated endpoints say little (issue 37 item 11). `/healthz` without a key is a status and
 * readiness only; the admin key or `bridge.metrics_token` as a bearer token reads the whole report
 * (profiles, storage, the database's place). The public agent card does not name the bridge's
 * version; the same keys read it there.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SERVER_VERSION } from "../../src/edge/mcp/mcpServer.ts"
import { HermesClientTest } from "../../src/hermes/client/HermesClientTest.ts"
import { startDaemon, type TestDaemon, tempDir, testConfig } from "../support/daemon.ts"

const METRICS_TOKEN = "metrics-token-0123456789abcdef"
let daemon: TestDaemon
let clientKey = ""

const get = async (path: string, key?: string) => {
  const res = await fetch(`${daemon.url}${path}`, key === undefined ? {} : { headers: { authorization: `Bearer ${key}` } })
  return { status: res.status, body: (await res.json()) as Record<string, any> }
}

beforeAll(async () => {
  const dir = tempDir()
  daemon = await startDaemon(
    testConfig({ bridge: { metrics_token: METRICS_TOKEN }, hermes: { url: "http://127.0.0.1:9", profiles: { secretive: {} } } }, dir),
    HermesClientTest({ profiles: [{ name: "default" }, { name: "secretive" }] })
  )
  clientKey = await daemon.addClient("plain", ["agents", "a2a"])
}, 60_000)
afterAll(async () => daemon?.close())

describe("/healthz", () => {
  it("without a key is a status and readiness only", async () => {
    const res = await get("/healthz")
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ status: "ok", ready: true })
    expect(JSON.stringify(res.body)).not.toContain("secretive")
  })

  it("with a client key, a wrong key or a malformed header, the same", async () => {
    for (const key of [clientKey, "not-a-key-at-all-0123456789", ""]) expect((await get("/healthz", key)).body).toEqual({ status: "ok", ready: true })
  })

  it("with the admin key or the metrics token, the whole report", async () => {
    for (const key of [daemon.adminKey, METRICS_TOKEN]) {
      const res = await get("/healthz", key)
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ status: "ok", ready: true, phase: "ready", ledger: "ok", storage: "ok" })
      expect(res.body["hermes"].map((h: { agent: string }) => h.agent)).toContain("hermes/secretive")
    }
  })
})

describe("the agent card", () => {
  it("without a key does not name the bridge's version", async () => {
    const res = await get("/.well-known/agent-card.json")
    expect(res.status).toBe(200)
    expect(JSON.stringify(res.body)).not.toContain(SERVER_VERSION)
    expect(JSON.stringify((await get("/.well-known/agent-card.json", clientKey)).body)).not.toContain(SERVER_VERSION)
  })

  it("with the admin key or the metrics token, names it", async () => {
    for (const key of [daemon.adminKey, METRICS_TOKEN]) expect((await get("/.well-known/agent-card.json", key)).body["version"]).toBe(SERVER_VERSION)
  })
})
