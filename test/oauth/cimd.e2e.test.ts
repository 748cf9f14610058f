/**
 * Client ID Metadata Documents: the client's `client_id` is the HTTPS URL of its metadata, which
 * the bridge fetches through the webhooks' SSRF guard (`services/oauth/metadataFetch.ts`). Here a
 * local HTTPS server (a certificate made for 127.0.0.1, trusted by this daemon only) serves the
 * documents, and `oauth.client_metadata_allow` names 127.0.0.1 as webhook tests do; a host that
 * resolves to a private address is refused whatever it serves.
 */
import { auth } from "@modelcontextprotocol/client"
import { Effect, Layer } from "effect"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import https from "node:https"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { WebhookResolverTest } from "../../src/services/a2aPush/WebhookResolver.ts"
import { Consents } from "../../src/services/oauth/Consents.ts"
import { tempDir, type TestDaemon } from "../support/daemon.ts"
import { beginAuth, Browser, decideOnPage, MemoryProvider, REDIRECT, startOAuthDaemon, toRedirect, toWaitingPage } from "./support.ts"

const documents = new Map<string, Record<string, unknown>>()
let server: https.Server
let base = ""
let cert = ""

const documentFor = (clientId: string, name: string) => ({
  client_id: clientId,
  client_name: name,
  redirect_uris: [REDIRECT],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "none"
})

describe("Client ID Metadata Documents", () => {
  let daemon: TestDaemon
  beforeAll(async () => {
    const dir = tempDir()
    const [key, crt] = [path.join(dir, "key.pem"), path.join(dir, "cert.pem")]
    await promisify(execFile)("openssl", [
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", crt,
      "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"
    ])
    cert = fs.readFileSync(crt, "utf8")
    server = https.createServer({ key: fs.readFileSync(key), cert }, (req, res) => {
      const doc = documents.get(req.url ?? "")
      res.writeHead(doc === undefined ? 404 : 200, { "content-type": "application/json" })
      res.end(doc === undefined ? "{}" : JSON.stringify(doc))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
    documents.set("/honest.json", documentFor(`${base}/honest.json`, "Claude"))
    documents.set("/liar.json", documentFor(`${base}/someone-else.json`, "Liar"))
    daemon = await startOAuthDaemon(
      { client_metadata_allow: ["127.0.0.1"] },
      { oauth: { metadataCa: cert }, webhookResolver: WebhookResolverTest(new Map([["inside.test", ["10.0.0.5"]]])) as Layer.Layer<never> as never }
    )
  }, 60_000)
  afterAll(async () => {
    await daemon?.close()
    server?.close()
  })

  it("takes a client by its document: the inbox row names the document's host, and the flow completes", async () => {
    const provider = new MemoryProvider("Claude", `${base}/honest.json`)
    const browser = new Browser()
    const interaction = await toWaitingPage(daemon, browser, await beginAuth(daemon, provider))
    expect(provider.clientInformation()?.client_id).toBe(`${base}/honest.json`)
    const pending = await daemon.use(Effect.flatMap(Consents, (c) => c.pending))
    expect(pending.find((c) => c.client_id === `${base}/honest.json`)).toMatchObject({ client_name: "Claude", client_host: new URL(base).host })
    await decideOnPage(browser, daemon, interaction, "approve")
    const back = await toRedirect(daemon, browser, interaction)
    expect(await auth(provider, { serverUrl: `${daemon.url}/mcp/agents/mcp`, authorizationCode: back.searchParams.get("code")!, iss: back.searchParams.get("iss")! } as never)).toBe("AUTHORIZED")
  }, 60_000)

  it("refuses a document that names another client_id", async () => {
    const provider = new MemoryProvider("Liar", `${base}/liar.json`)
    const url = await beginAuth(daemon, provider)
    const { res, url: landed } = await new Browser().follow(url.href, daemon.url)
    expect(landed.startsWith(daemon.url)).toBe(true)
    expect(res.status).toBe(400)
    expect(await res.text()).toMatch(/invalid_client/)
  }, 60_000)

  it("never fetches a document from a host that resolves to a private address", async () => {
    const provider = new MemoryProvider("Inside", "https://inside.test/client.json")
    const url = await beginAuth(daemon, provider)
    const { res } = await new Browser().follow(url.href, daemon.url)
    expect(res.status).toBe(400)
    expect(await res.text()).toMatch(/invalid_client/)
  }, 60_000)
})
