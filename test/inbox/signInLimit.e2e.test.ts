/**
 * The sign-in limit in the daemon over real HTTP: the address counted is the socket's peer. Five
 * wrong keys from 127.0.0.1 lock that address (429, Retry-After, even for the right key, whatever
 * X-Forwarded-For says), while a browser connecting from 127.0.0.2 still signs in.
 */
import * as http from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startDaemon, testConfig, type TestDaemon } from "../support/daemon.ts"
import { HermesClientTest } from "../../src/hermes/client/HermesClientTest.ts"

interface Reply {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

/** A cookie-keeping client whose connections leave from `localAddress` (any 127/8 address is loopback). */
const clientFrom = (base: string, localAddress: string) => {
  const jar = new Map<string, string>()
  const u = new URL(base)
  const send = (method: string, path: string, form?: Record<string, string>, extra: Record<string, string> = {}) =>
    new Promise<Reply>((resolve, reject) => {
      const body = form === undefined ? undefined : new URLSearchParams(form).toString()
      const req = http.request(
        {
          host: u.hostname, port: u.port, path, method, localAddress, agent: false,
          headers: {
            host: u.host,
            cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "),
            ...(body === undefined ? {} : { "content-type": "application/x-www-form-urlencoded", "content-length": String(Buffer.byteLength(body)), origin: base }),
            ...extra
          }
        },
        (res) => {
          for (const c of res.headers["set-cookie"] ?? []) {
            const [pair = ""] = c.split(";")
            const [name = "", value = ""] = pair.split("=")
            if (value === "") jar.delete(name)
            else jar.set(name, value)
          }
          let data = ""
          res.on("data", (chunk) => (data += chunk))
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }))
        }
      )
      req.on("error", reject)
      req.end(body)
    })
  const signIn = async (key: string, extra: Record<string, string> = {}) => {
    const form = await send("GET", "/inbox/signin")
    const csrf = /name="csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? ""
    return send("POST", "/inbox/signin", { csrf, key }, extra)
  }
  return { send, signIn }
}

describe("the sign-in limit in the daemon", () => {
  let daemon: TestDaemon
  beforeAll(async () => {
    daemon = await startDaemon(testConfig(), HermesClientTest())
  })
  afterAll(async () => daemon?.close())

  it("locks the peer address after five wrong keys, and only that address", async () => {
    const local = clientFrom(daemon.url, "127.0.0.1")
    for (let i = 0; i < 5; i++) {
      // A forwarded-for header is the client's own word: it changes nothing.
      expect((await local.signIn("hal0bk_wrong", { "x-forwarded-for": `198.51.100.${i}` })).status).toBe(403)
    }
    const locked = await local.signIn(daemon.adminKey, { "x-forwarded-for": "198.51.100.99" })
    expect(locked.status).toBe(429)
    const retryAfter = Number(locked.headers["retry-after"])
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(300)
    expect(locked.body).toContain("Too many wrong keys from this address.")
    expect((await local.send("GET", "/inbox")).headers["location"]).toBe("/inbox/signin")

    const other = clientFrom(daemon.url, "127.0.0.2")
    expect((await other.signIn(daemon.adminKey)).status).toBe(303)
    expect((await other.send("GET", "/inbox")).status).toBe(200)
  })
})

describe("the sign-in limit behind a trusted proxy (bridge.trusted_proxies)", () => {
  let daemon: TestDaemon
  beforeAll(async () => {
    daemon = await startDaemon(testConfig({ bridge: { trusted_proxies: ["127.0.0.1"] } }), HermesClientTest())
  })
  afterAll(async () => daemon?.close())

  it("counts the forwarded client: one client's wrong keys do not lock the operator behind the same proxy", async () => {
    const proxy = clientFrom(daemon.url, "127.0.0.1")
    for (let i = 0; i < 5; i++) expect((await proxy.signIn("hal0bk_wrong", { "x-forwarded-for": "198.51.100.66" })).status).toBe(403)
    expect((await proxy.signIn(daemon.adminKey, { "x-forwarded-for": "198.51.100.66" })).status).toBe(429)
    expect((await proxy.signIn(daemon.adminKey, { "x-forwarded-for": "198.51.100.7" })).status).toBe(303)
    // 127.0.0.2 is not a trusted proxy: its header is its own word.
    const direct = clientFrom(daemon.url, "127.0.0.2")
    for (let i = 0; i < 5; i++) await direct.signIn("hal0bk_wrong", { "x-forwarded-for": `198.51.100.${i}` })
    expect((await direct.signIn(daemon.adminKey, { "x-forwarded-for": "198.51.100.8" })).status).toBe(429)
  })
})
