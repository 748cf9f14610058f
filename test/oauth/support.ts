/**
 * OAuth test plumbing: a daemon with `oauth.issuer` on a port chosen first (the issuer names it),
 * the SDK's own client OAuth flow (`auth` from `@modelcontextprotocol/client`) over an in-memory
 * `OAuthClientProvider`, and the browser step done by hand: the authorization URL followed with a
 * small cookie jar to the bridge's waiting page, the operator's decision, then on to the redirect.
 */
import { auth, type OAuthClientProvider } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, expect } from "vitest"
import { freeLoopbackPort } from "../support/freePort.ts"
import { startDaemon, type TestDaemon, testConfig } from "../support/daemon.ts"
import type { DaemonOptions } from "../../src/daemon/Daemon.ts"

export const REDIRECT = "http://127.0.0.1:9/callback"

export const startOAuthDaemon = async (oauth: Record<string, unknown> = {}, options: Omit<DaemonOptions, "hermes"> = {}) => {
  const port = await freeLoopbackPort()
  const daemon = await startDaemon(testConfig({ bridge: { port }, cluster: { port: 0 }, oauth: { issuer: `http://127.0.0.1:${port}`, ...oauth } }), undefined, options)
  return daemon
}

/**
 * A daemon with OAuth on for the describe block this is called in: started before its tests (handed
 * to `started`), closed after them.
 */
export const useOAuthDaemon = (started: (daemon: TestDaemon) => void, oauth: Record<string, unknown> = {}, options: Omit<DaemonOptions, "hermes"> = {}) => {
  let daemon: TestDaemon | undefined
  beforeAll(async () => {
    daemon = await startOAuthDaemon(oauth, options)
    started(daemon)
  }, 60_000)
  afterAll(async () => {
    await daemon?.close()
  })
}

/** An in-memory client of the SDK's OAuth interface; `redirected` is the last authorization URL. */
export class MemoryProvider implements OAuthClientProvider {
  redirected: URL | undefined
  /** The last authorization code the flow got (connectWithOAuth). */
  lastCode: string | undefined
  private info: any
  private saved: any
  private verifier = ""
  readonly clientMetadataUrl?: string
  constructor(readonly name = "Test Connector", metadataUrl?: string, readonly redirect = REDIRECT) {
    if (metadataUrl !== undefined) this.clientMetadataUrl = metadataUrl
  }
  get redirectUrl() { return this.redirect }
  get clientMetadata() {
    return { client_name: this.name, redirect_uris: [this.redirect], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" }
  }
  clientInformation() { return this.info }
  saveClientInformation(info: unknown) { this.info = info }
  tokens() { return this.saved }
  saveTokens(tokens: unknown) { this.saved = tokens }
  redirectToAuthorization(url: URL) { this.redirected = url }
  saveCodeVerifier(v: string) { this.verifier = v }
  codeVerifier() { return this.verifier }
  setCodeVerifier(v: string) { this.verifier = v }
}

/** A browser: follows redirects by hand (on the bridge only), keeping cookies. */
export class Browser {
  private jar = new Map<string, string>()
  async go(url: string, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(url, { ...init, redirect: "manual", headers: { ...(init.headers as Record<string, string> ?? {}), cookie: [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ") } })
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";")
      const at = pair!.indexOf("=")
      this.jar.set(pair!.slice(0, at), pair!.slice(at + 1))
    }
    return res
  }
  /** Follows 30x within `origin` from `url`; answers the last response and its URL. */
  async follow(url: string, origin: string): Promise<{ res: Response; url: string }> {
    let at = url
    for (let i = 0; i < 10; i++) {
      const res = await this.go(at)
      const location = res.headers.get("location")
      if (res.status < 300 || res.status >= 400 || location === null) return { res, url: at }
      const next = new URL(location, at).href
      if (!next.startsWith(origin)) return { res, url: next }
      at = next
    }
    throw new Error("too many redirects")
  }
}

/** Starts the SDK's flow: registration (or CIMD) and the authorization URL. */
export const beginAuth = async (daemon: TestDaemon, provider: MemoryProvider, server: "agents" | "memory" = "agents") => {
  const result = await auth(provider, { serverUrl: `${daemon.url}/mcp/${server}/mcp` })
  expect(result).toBe("REDIRECT")
  return provider.redirected!
}

/** The browser's step up to the waiting page: its interaction URL. */
export const toWaitingPage = async (daemon: TestDaemon, browser: Browser, authorizationUrl: URL) => {
  const { res, url } = await browser.follow(authorizationUrl.href, daemon.url)
  expect(res.status, await res.clone().text()).toBe(200)
  expect(url).toMatch(/\/oauth\/interaction\//)
  return url
}

/** After the decision: the browser goes on to the client's redirect; its code, state and iss. */
export const toRedirect = async (daemon: TestDaemon, browser: Browser, interactionUrl: string) => {
  const { url } = await browser.follow(interactionUrl, daemon.url)
  expect(url.startsWith(REDIRECT) || url.startsWith("http://127.0.0.1:9/"), url).toBe(true)
  return new URL(url)
}

/** The admin key's decision on the waiting page. */
export const decideOnPage = (browser: Browser, daemon: TestDaemon, interactionUrl: string, decision: "approve" | "deny", key = daemon.adminKey) =>
  browser.go(interactionUrl, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ key, decision }).toString()
  })

/** The whole flow, approved on the page: the provider ends holding tokens. */
export const connectWithOAuth = async (daemon: TestDaemon, provider = new MemoryProvider(), server: "agents" | "memory" = "agents") => {
  const browser = new Browser()
  const interaction = await toWaitingPage(daemon, browser, await beginAuth(daemon, provider, server))
  await decideOnPage(browser, daemon, interaction, "approve")
  const back = await toRedirect(daemon, browser, interaction)
  const code = back.searchParams.get("code")
  expect(code, back.href).not.toBeNull()
  provider.lastCode = code!
  expect(await auth(provider, { serverUrl: `${daemon.url}/mcp/${server}/mcp`, authorizationCode: code!, iss: back.searchParams.get("iss") ?? undefined } as never)).toBe("AUTHORIZED")
  return provider
}
