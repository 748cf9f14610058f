/**
 * The sign-in limit: the limiter on the TestClock, over its table in the database (five wrong keys lock an address for the window,
 * the window slides, success starts over, addresses are independent, parallel guesses are counted,
 * the table stays bounded), and the sign-in route with it (429 with Retry-After and the sign-in
 * page, the key not looked at while locked, per remote address).
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Layer, Logger, Ref, TestClock } from "effect"
import { inboxApp } from "../../src/edge/inbox/routes.ts"
import { DEFAULT_SIGN_IN_LIMIT, limitAddress, makeSignInLimit } from "../../src/edge/inbox/signInLimit.ts"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { SignInFailuresLive } from "../../src/services/inbox/SignInFailures.ts"
import { testConfig } from "../support/daemon.ts"
import { TestDb } from "../support/testDb.ts"
import { adminKey, HOST, makeBrowser, makeHarness, ORIGIN } from "./support.ts"

const WRONG = "hal0bk_not-the-admin-key"

/** The limiter's table (`SignInFailures`) over a database of the test's own. */
const failuresTable = () => SignInFailuresLive.pipe(Layer.provide(TestDb), Layer.provide(AppConfigLive(testConfig())))

describe("the limiter", () => {
  it.effect("five failures lock the address for the window; then it may try again", () =>
    Effect.gen(function* () {
      const limit = yield* makeSignInLimit()
      for (let i = 1; i <= 5; i++) {
        const a = yield* limit.attempt("10.0.0.1")
        expect(a).toEqual({ _tag: "Allowed", last: i === 5 })
        yield* TestClock.adjust("10 seconds")
      }
      // The oldest failure was 50 s ago: it leaves the 5-minute window in 250 s.
      expect(yield* limit.attempt("10.0.0.1")).toEqual({ _tag: "Refused", retryAfterSeconds: 250 })
      yield* TestClock.adjust("249 seconds")
      expect((yield* limit.attempt("10.0.0.1"))._tag).toBe("Refused")
      yield* TestClock.adjust("1 second")
      // One failure left the window: one more attempt, which (failing) locks again until the next leaves.
      expect(yield* limit.attempt("10.0.0.1")).toEqual({ _tag: "Allowed", last: true })
      expect(yield* limit.attempt("10.0.0.1")).toEqual({ _tag: "Refused", retryAfterSeconds: 10 })
    }).pipe(Effect.provide(failuresTable())))

  it.effect("failures spread wider than the window never lock", () =>
    Effect.gen(function* () {
      const limit = yield* makeSignInLimit()
      for (let i = 0; i < 30; i++) {
        expect((yield* limit.attempt("10.0.0.1"))._tag).toBe("Allowed")
        yield* TestClock.adjust("61 seconds")
      }
    }).pipe(Effect.provide(failuresTable())))

  it.effect("a success forgets the address's failures", () =>
    Effect.gen(function* () {
      const limit = yield* makeSignInLimit()
      for (let i = 0; i < 4; i++) yield* limit.attempt("10.0.0.1")
      yield* limit.attempt("10.0.0.1")
      yield* limit.succeeded("10.0.0.1")
      expect(yield* limit.size).toBe(0)
      for (let i = 1; i <= 5; i++) expect(yield* limit.attempt("10.0.0.1")).toEqual({ _tag: "Allowed", last: i === 5 })
    }).pipe(Effect.provide(failuresTable())))

  it.effect("one address's failures do not count against another's", () =>
    Effect.gen(function* () {
      const limit = yield* makeSignInLimit()
      for (let i = 0; i < 5; i++) yield* limit.attempt("10.0.0.1")
      expect((yield* limit.attempt("10.0.0.1"))._tag).toBe("Refused")
      expect(yield* limit.attempt("10.0.0.2")).toEqual({ _tag: "Allowed", last: false })
      yield* limit.succeeded("10.0.0.2")
      expect((yield* limit.attempt("10.0.0.1"))._tag).toBe("Refused")
    }).pipe(Effect.provide(failuresTable())))

  it.effect("parallel guesses are each counted: no more than five get past the gate", () =>
    Effect.gen(function* () {
      const limit = yield* makeSignInLimit()
      const results = yield* Effect.all(Array.from({ length: 50 }, () => limit.attempt("10.0.0.1")), { concurrency: "unbounded" })
      expect(results.filter((r) => r._tag === "Allowed")).toHaveLength(5)
    }).pipe(Effect.provide(failuresTable())))

  it.effect("the table is bounded: a flood of addresses never grows it past the limit", () =>
    Effect.gen(function* () {
      const limit = yield* makeSignInLimit({ ...DEFAULT_SIGN_IN_LIMIT, maxAddresses: 16 })
      for (let i = 0; i < 300; i++) {
        yield* limit.attempt(`10.2.${i >> 8}.${i & 255}`)
        expect(yield* limit.size).toBeLessThanOrEqual(16)
      }
      expect(yield* limit.size).toBe(16)
    }).pipe(Effect.provide(failuresTable())))

  it.effect("past the bound the address whose last failure is oldest is forgotten first", () =>
    Effect.gen(function* () {
      const limit = yield* makeSignInLimit({ ...DEFAULT_SIGN_IN_LIMIT, maxAddresses: 3 })
      const lock = (address: string) => Effect.gen(function* () {
        for (let i = 0; i < 5; i++) yield* limit.attempt(address)
        yield* TestClock.adjust("1 second")
      })
      yield* lock("10.0.0.1")
      yield* lock("10.0.0.2")
      yield* lock("10.0.0.3")
      yield* lock("10.0.0.4")
      // 10.0.0.1 made room for 10.0.0.4; the other two are still locked.
      expect(yield* limit.attempt("10.0.0.2")).toMatchObject({ _tag: "Refused" })
      expect(yield* limit.attempt("10.0.0.3")).toMatchObject({ _tag: "Refused" })
      expect(yield* limit.attempt("10.0.0.4")).toMatchObject({ _tag: "Refused" })
      expect(yield* limit.size).toBe(3)
      expect(yield* limit.attempt("10.0.0.1")).toEqual({ _tag: "Allowed", last: false })
    }).pipe(Effect.provide(failuresTable())))

  it("counts IPv4-mapped IPv6 as IPv4, and requests without a peer under one name", () => {
    expect(limitAddress("::ffff:127.0.0.1")).toBe("127.0.0.1")
    expect(limitAddress("::FFFF:10.0.0.7")).toBe("10.0.0.7")
    expect(limitAddress("2001:DB8::1")).toBe("2001:db8::1")
    expect(limitAddress(undefined)).toBe("unknown")
    expect(limitAddress("")).toBe("unknown")
  })
})

/** A sign-in POST as the page's form sends it, from `address` (the socket's peer). */
const signInFrom = (b: Effect.Effect.Success<typeof makeBrowser>, key: string, address: string, extra: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const form = yield* b.call("GET", "/inbox/signin")
    const cookies = [...(yield* Ref.get(b.jar))].map(([k, v]) => `${k}=${v}`).join("; ")
    const request = new Request(`${ORIGIN}/inbox/signin`, {
      method: "POST",
      headers: { host: HOST, origin: ORIGIN, cookie: cookies, "content-type": "application/x-www-form-urlencoded", ...extra },
      body: new URLSearchParams({ csrf: b.csrfOf(form.body), key }).toString()
    })
    const response = yield* inboxApp("/inbox/signin").pipe(
      Effect.provideService(HttpServerRequest.HttpServerRequest, HttpServerRequest.fromWeb(request).modify({ remoteAddress: address }))
    )
    const web = HttpServerResponse.toWeb(response)
    return { status: web.status, retryAfter: web.headers.get("retry-after"), setCookies: web.headers.getSetCookie(), body: yield* Effect.promise(() => web.text()) }
  })

const sessionCookie = (setCookies: ReadonlyArray<string>) => setCookies.some((c) => c.startsWith("agent_bridge_inbox="))

describe("the sign-in route under the limit", () => {
  it.effect("five wrong keys, then even the right key gets 429 with Retry-After and the sign-in page", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const b = yield* makeBrowser
      for (let i = 0; i < 5; i++) expect((yield* b.signIn(WRONG)).status).toBe(403)
      const locked = yield* b.signIn(yield* adminKey)
      expect(locked.status).toBe(429)
      expect(locked.headers.get("retry-after")).toBe(String(Duration.toSeconds(DEFAULT_SIGN_IN_LIMIT.window)))
      expect(locked.headers.get("content-type")).toContain("text/html")
      expect(locked.headers.get("x-frame-options")).toBe("DENY")
      expect(locked.body).toContain("Too many wrong keys from this address.")
      expect(locked.body).toContain('<input type="password" id="key" name="key"')
      expect(sessionCookie(locked.setCookies)).toBe(false)
      expect((yield* b.call("GET", "/inbox")).location).toBe("/inbox/signin")
      // A new browser from the same address is refused as well.
      expect((yield* (yield* makeBrowser).signIn(yield* adminKey)).status).toBe(429)
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("after the window the right key signs in again", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const b = yield* makeBrowser
      for (let i = 0; i < 5; i++) yield* b.signIn(WRONG)
      yield* TestClock.adjust("299 seconds")
      const still = yield* b.signIn(yield* adminKey)
      expect(still.status).toBe(429)
      expect(still.headers.get("retry-after")).toBe("1")
      yield* TestClock.adjust("1 second")
      const ok = yield* b.signIn(yield* adminKey)
      expect(ok.status).toBe(303)
      expect((yield* b.call("GET", "/inbox")).status).toBe(200)
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("a successful sign-in resets the count", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const b = yield* makeBrowser
      for (let i = 0; i < 4; i++) expect((yield* b.signIn(WRONG)).status).toBe(403)
      expect((yield* b.signIn(yield* adminKey)).status).toBe(303)
      const c = yield* makeBrowser
      for (let i = 0; i < 5; i++) expect((yield* c.signIn(WRONG)).status).toBe(403)
      expect((yield* c.signIn(yield* adminKey)).status).toBe(429)
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("a stale form is no guess: it does not count", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const b = yield* makeBrowser
      yield* b.call("GET", "/inbox/signin")
      for (let i = 0; i < 10; i++) expect((yield* b.call("POST", "/inbox/signin", { form: { csrf: "guessed", key: WRONG } })).status).toBe(403)
      expect((yield* b.signIn(yield* adminKey)).status).toBe(303)
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("one remote address's failures do not lock another's sign-in", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const b = yield* makeBrowser
      for (let i = 0; i < 5; i++) expect((yield* signInFrom(b, WRONG, "192.0.2.10")).status).toBe(403)
      const locked = yield* signInFrom(b, yield* adminKey, "192.0.2.10")
      expect(locked.status).toBe(429)
      expect(locked.retryAfter).toBe("300")
      const other = yield* signInFrom(b, yield* adminKey, "192.0.2.11")
      expect(other.status).toBe(303)
      expect(sessionCookie(other.setCookies)).toBe(true)
      // The same peer written as IPv4-mapped IPv6 is the same address.
      expect((yield* signInFrom(b, yield* adminKey, "::ffff:192.0.2.10")).status).toBe(429)
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("behind a trusted proxy each forwarded client has its own count; the proxy is never locked", () => {
    const h = makeHarness({ trustedProxies: ["192.0.2.1"] })
    const lines: Array<string> = []
    const capture = Logger.replace(Logger.defaultLogger, Logger.make((o) => void lines.push(Logger.logfmtLogger.log(o))))
    return Effect.gen(function* () {
      const b = yield* makeBrowser
      const via = (client: string) => ({ "x-forwarded-for": client })
      for (let i = 0; i < 5; i++) expect((yield* signInFrom(b, WRONG, "192.0.2.1", via("203.0.113.66"))).status).toBe(403)
      expect((yield* signInFrom(b, yield* adminKey, "192.0.2.1", via("203.0.113.66"))).status).toBe(429)
      // The operator, through the same proxy, still signs in.
      expect((yield* signInFrom(b, yield* adminKey, "192.0.2.1", via("203.0.113.7"))).status).toBe(303)
      // The attacker cannot step around the count by writing its own header: the proxy appends the real one.
      expect((yield* signInFrom(b, yield* adminKey, "192.0.2.1", via("203.0.113.7, 203.0.113.66"))).status).toBe(429)
      // A peer that is not a trusted proxy is counted as itself, whatever it forwards.
      for (let i = 0; i < 5; i++) yield* signInFrom(b, WRONG, "198.51.100.3", via("203.0.113.8"))
      expect((yield* signInFrom(b, yield* adminKey, "198.51.100.3", via("203.0.113.9"))).status).toBe(429)
      expect((yield* signInFrom(b, yield* adminKey, "192.0.2.1", via("203.0.113.8"))).status).toBe(303)
      // Each lockout is logged at warning with the address it locked.
      const lockouts = lines.filter((l) => l.includes("are refused for"))
      expect(lockouts.length).toBe(2)
      expect(lockouts[0]).toContain("level=WARN")
      expect(lockouts[0]).toContain("client_address=203.0.113.66")
      expect(lockouts[0]).toContain("peer=192.0.2.1")
      expect(lockouts[1]).toContain("client_address=198.51.100.3")
    }).pipe(Effect.provide(h.layer), Effect.provide(capture))
  })

  it.effect("without trusted proxies X-Forwarded-For is ignored", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const b = yield* makeBrowser
      for (let i = 0; i < 5; i++) yield* signInFrom(b, WRONG, "192.0.2.1", { "x-forwarded-for": `203.0.113.${i}` })
      expect((yield* signInFrom(b, yield* adminKey, "192.0.2.1", { "x-forwarded-for": "203.0.113.200" })).status).toBe(429)
    }).pipe(Effect.provide(h.layer))
  })
})
