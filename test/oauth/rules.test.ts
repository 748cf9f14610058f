/**
 * OAuth's pure rules (`domain/oauth.ts`) and its config keys: what may be `oauth.issuer`, which
 * redirect URIs a registered client may name, and that a config without `oauth` has none.
 */
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { loadConfig } from "../../src/config/load.ts"
import { oauthNameOf } from "../../src/services/auth/Auth.ts"
import { issuerProblem, redirectProblem, resourceMetadataPath, resourceUrl } from "../../src/domain/oauth.ts"
import { testConfig } from "../support/daemon.ts"

describe("oauth rules", () => {
  it("takes an https base URL (http only on loopback) as issuer, nothing with a path, query or user", () => {
    expect(issuerProblem("https://bridge.example.com")).toBeUndefined()
    expect(issuerProblem("https://bridge.example.com:8443/")).toBeUndefined()
    expect(issuerProblem("http://127.0.0.1:8765")).toBeUndefined()
    expect(issuerProblem("http://bridge.example.com")).toMatch(/https/)
    expect(issuerProblem("https://bridge.example.com/agent-bridge")).toMatch(/no path/)
    expect(issuerProblem("https://u:p@bridge.example.com")).toMatch(/no user/)
    expect(issuerProblem("https://bridge.example.com/?a=1")).toMatch(/query/)
    expect(issuerProblem("bridge.example.com")).toMatch(/absolute URL/)
  })

  it("names the resources and their metadata under the issuer", () => {
    expect(resourceUrl("https://b.example/", "agents")).toBe("https://b.example/mcp/agents/mcp")
    expect(resourceMetadataPath("memory")).toBe("/.well-known/oauth-protected-resource/mcp/memory/mcp")
  })

  it("registers loopback, the ChatGPT and Claude callbacks and the configured hosts; nothing else", () => {
    expect(redirectProblem("http://127.0.0.1:33418/callback", [])).toBeUndefined()
    expect(redirectProblem("http://localhost/cb", [])).toBeUndefined()
    expect(redirectProblem("https://chatgpt.com/connector_platform_oauth_redirect", [])).toBeUndefined()
    expect(redirectProblem("https://claude.ai/api/mcp/auth_callback", [])).toBeUndefined()
    expect(redirectProblem("https://claude.com/api/mcp/auth_callback", [])).toBeUndefined()
    expect(redirectProblem("https://evil.example/cb", [])).toMatch(/oauth.redirect_hosts/)
    expect(redirectProblem("https://app.corp.example/cb", ["*.corp.example"])).toBeUndefined()
    expect(redirectProblem("http://chatgpt.com/cb", [])).toMatch(/must be https/)
    expect(redirectProblem("https://claude.ai.evil.example/cb", [])).toMatch(/not a redirect host/)
    expect(redirectProblem("https://chatgpt.com/cb#x", [])).toMatch(/fragment/)
    expect(redirectProblem("custom-scheme:/cb", [])).toMatch(/must be https/)
  })

  it("makes a client name of an OAuth client's own name", () => {
    expect(oauthNameOf("ChatGPT")).toBe("chatgpt")
    expect(oauthNameOf("Claude Desktop (beta)")).toBe("claude-desktop-beta")
    expect(oauthNameOf("admin")).toBe("oauth-admin")
    expect(oauthNameOf("hermes__x")).toBe("oauth-hermes__x")
    expect(oauthNameOf("☃")).toBe("oauth")
    expect(oauthNameOf("x".repeat(80))).toHaveLength(32)
  })

  it("leaves oauth unset by default and refuses a bad issuer where the config is read", () => {
    expect(testConfig().oauth).toBeUndefined()
    const on = testConfig({ oauth: { issuer: "https://bridge.example.com" } }).oauth!
    expect(on).toMatchObject({ issuer: "https://bridge.example.com", access_token_ttl_s: 3600, refresh_token_ttl_days: 30, redirect_hosts: [], client_metadata_allow: [], client_metadata_documents: true })
    const bad = loadConfig({ env: { AGENT_BRIDGE_OAUTH_ISSUER: "http://bridge.example.com" } })
    expect(Either.isLeft(bad) && bad.left.message).toMatch(/oauth\.issuer/)
  })
})
