/**
 * OAuth off (no `oauth.issuer`, the default): nothing of it exists. A request without a key is 403
 * `auth.forbidden` with no challenge, every OAuth path is the plain 404, and the OAuth library is
 * never loaded (its runtime notice is never printed).
 */
import { Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { WebhookResolverLive } from "../../src/services/a2aPush/WebhookResolver.ts"
import { OAuthFor } from "../../src/services/oauth/OAuth.ts"

const SRC = path.resolve(import.meta.dirname, "../../src")
import { startDaemon, type TestDaemon, testConfig } from "../support/daemon.ts"

describe("OAuth off", () => {
  let daemon: TestDaemon
  beforeAll(async () => {
    daemon = await startDaemon(testConfig())
  }, 60_000)
  afterAll(async () => {
    await daemon?.close()
  })

  it("answers no key with 403 and no challenge, and 404 on every OAuth path", async () => {
    const none = await fetch(`${daemon.url}/mcp/agents/mcp`, { method: "POST", body: "{}" })
    expect(none.status).toBe(403)
    expect(none.headers.get("www-authenticate")).toBeNull()
    expect((await none.json()).error.code).toBe("auth.forbidden")
    for (const p of ["/.well-known/oauth-protected-resource/mcp/agents/mcp", "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration", "/oauth/authorize", "/oauth/register", "/oauth/interaction/abc"]) {
      const res = await fetch(`${daemon.url}${p}`)
      expect(res.status, p).toBe(404)
      expect(await res.json(), p).toEqual({ error: { code: "not_found", message: "no such path" } })
    }
    const connect = await fetch(`${daemon.url}/inbox/connect/abc`, { method: "POST" })
    expect(connect.status).toBe(403)
  })

  it("never loads the OAuth library: no static import of it anywhere, and no layer without oauth", () => {
    const files = fs.readdirSync(SRC, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
    const importers = files.filter((f) => /from\s+["']oidc-provider["']|import\s+["']oidc-provider["']/.test(fs.readFileSync(path.join(SRC, f), "utf8")))
    expect(importers).toEqual([])
    const dynamic = files.filter((f) => fs.readFileSync(path.join(SRC, f), "utf8").includes('import("oidc-provider")'))
    expect(dynamic).toEqual([path.join("services", "oauth", "OAuth.ts")])
    expect(OAuthFor(undefined, WebhookResolverLive)).toBe(Layer.empty)
  })
})
