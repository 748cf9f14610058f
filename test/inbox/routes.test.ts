/**
 * Every inbox route in-process: sign-in (admin key only, form token), the refusal of everything
 * without a session, CSRF and cross-origin refusal of every POST, session expiry and sign-out, the
 * pages (pending newest first, history, the whole skill card and diff, the redacted run approval),
 * decisions through the Inbox service, static assets, security headers, and HTML escaping.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { CONTENT_SECURITY_POLICY } from "../../src/edge/inbox/security.ts"
import { Auth } from "../../src/services/auth/Auth.ts"
import { skillMd } from "../teach/skillFixtures.ts"
import { adminKey, makeBrowser, makeHarness, pushSkill, rowState } from "./support.ts"

const expectSecurityHeaders = (headers: Headers) => {
  expect(headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY)
  expect(headers.get("x-frame-options")).toBe("DENY")
  expect(headers.get("cache-control")).toBe("no-store")
  expect(headers.get("x-content-type-options")).toBe("nosniff")
}

describe("without a session", () => {
  it.effect("every page redirects to the sign-in form and shows nothing of the inbox", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const row = yield* pushSkill("alice", "secret-skill", skillMd("secret-skill"))
      const b = yield* makeBrowser
      for (const p of ["/inbox", "/inbox/", "/inbox/history", `/inbox/rows/${row.approval_id}`]) {
        const r = yield* b.call("GET", p)
        expect(r.status, p).toBe(303)
        expect(r.location, p).toBe("/inbox/signin")
        expect(r.body).not.toContain("secret-skill")
        expectSecurityHeaders(r.headers)
      }
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("the event stream and every POST are refused with 403, and nothing is decided", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const row = yield* pushSkill("alice", "s", skillMd("s"))
      const b = yield* makeBrowser
      const events = yield* b.call("GET", "/inbox/events")
      expect(events.status).toBe(403)
      const decide = yield* b.call("POST", `/inbox/rows/${row.approval_id}`, { form: { csrf: "x", decision: "approve" } })
      expect(decide.status).toBe(403)
      expect(decide.body).toContain("Sign in with the admin key")
      expect(yield* rowState(row.approval_id)).toBe("pending")
      expect(fs.existsSync(path.join(h.stack.dirs.dropinDir, "s"))).toBe(false)
      expect((yield* b.call("POST", "/inbox/signout", { form: { csrf: "x" } })).status).toBe(403)
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("a made-up session cookie is no session", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const b = yield* makeBrowser
      const r = yield* b.call("GET", "/inbox", { headers: { cookie: "agent_bridge_inbox=forged-token-value" } })
      expect(r.status).toBe(303)
      expect(r.location).toBe("/inbox/signin?expired=1")
    }).pipe(Effect.provide(h.layer))
  })
})

describe("sign-in", () => {
  it.effect("the form sets a strict, HttpOnly form-token cookie and never shows a key", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const b = yield* makeBrowser
      const r = yield* b.call("GET", "/inbox/signin")
      expect(r.status).toBe(200)
      expect(r.headers.get("content-type")).toContain("text/html")
      expectSecurityHeaders(r.headers)
      expect(r.body).toContain('<input type="password" id="key" name="key"')
      const cookie = r.setCookies.find((c) => c.startsWith("agent_bridge_inbox_signin="))
      expect(cookie).toMatch(/HttpOnly/)
      expect(cookie).toMatch(/SameSite=Strict/)
      expect(cookie).toMatch(/Path=\/inbox/)
      expect(r.body).not.toContain(yield* adminKey)
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("the admin key opens a session: HttpOnly, SameSite=Strict, expiring cookie", () => {
    const h = makeHarness({ sessionTtl: "2 hours" })
    return Effect.gen(function* () {
      const b = yield* makeBrowser
      const r = yield* b.signIn(yield* adminKey)
      expect(r.status).toBe(303)
      expect(r.location).toBe("/inbox")
      const session = r.setCookies.find((c) => c.startsWith("agent_bridge_inbox="))
      expect(session).toMatch(/HttpOnly/)
      expect(session).toMatch(/SameSite=Strict/)
      expect(session).toMatch(/Max-Age=7200/)
      expect(session).not.toContain(yield* adminKey)
      const page = yield* b.call("GET", "/inbox")
      expect(page.status).toBe(200)
      expect(page.body).toContain("<h1>Pending</h1>")
      // Signed in, the sign-in page sends the operator on to the inbox.
      expect((yield* b.call("GET", "/inbox/signin")).location).toBe("/inbox")
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("a wrong key, a client key, and a missing or foreign form token are refused", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const b = yield* makeBrowser
      const wrong = yield* b.signIn("hal0bk_not-the-admin-key")
      expect(wrong.status).toBe(403)
      expect(wrong.body).toContain("That is not the admin key.")
      expect(wrong.setCookies.some((c) => c.startsWith("agent_bridge_inbox="))).toBe(false)
      const { key: clientKey } = yield* Effect.flatMap(Auth, (auth) => auth.addClient("laptop", ["agents"]))
      expect((yield* b.signIn(clientKey)).status).toBe(403)
      // The form token must match the cookie the form came with.
      const c = yield* makeBrowser
      yield* c.call("GET", "/inbox/signin")
      const forged = yield* c.call("POST", "/inbox/signin", { form: { csrf: "guessed", key: yield* adminKey } })
      expect(forged.status).toBe(403)
      expect(forged.body).toContain("This sign-in form is stale")
      const fresh = yield* makeBrowser
      expect((yield* fresh.call("POST", "/inbox/signin", { form: { csrf: "x", key: yield* adminKey } })).status).toBe(403)
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("a sign-in posted from another origin is refused before the key is looked at", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const b = yield* makeBrowser
      const form = yield* b.call("GET", "/inbox/signin")
      const r = yield* b.call("POST", "/inbox/signin", {
        form: { csrf: b.csrfOf(form.body), key: yield* adminKey },
        headers: { origin: "http://evil.example" }
      })
      expect(r.status).toBe(403)
      expect(r.setCookies.some((c) => c.startsWith("agent_bridge_inbox="))).toBe(false)
      const site = yield* b.call("POST", "/inbox/signin", {
        form: { csrf: b.csrfOf(form.body), key: yield* adminKey },
        headers: { "sec-fetch-site": "cross-site" }
      })
      expect(site.status).toBe(403)
    }).pipe(Effect.provide(h.layer))
  })
})

describe("sessions", () => {
  it.effect("a session ends at its expiry: pages send the operator to sign in again, POSTs are refused", () => {
    const h = makeHarness({ sessionTtl: "1 hour" })
    return Effect.gen(function* () {
      const row = yield* pushSkill("alice", "s", skillMd("s"))
      const b = yield* makeBrowser
      const csrf = yield* b.signInAsAdmin
      yield* TestClock.adjust("59 minutes")
      expect((yield* b.call("GET", "/inbox")).status).toBe(200)
      yield* TestClock.adjust("2 minutes")
      const page = yield* b.call("GET", "/inbox")
      expect(page.status).toBe(303)
      expect(page.location).toBe("/inbox/signin?expired=1")
      // The redirect dropped the cookie; a browser still holding it is refused too.
      const stale = yield* makeBrowser
      const again = yield* stale.call("POST", `/inbox/rows/${row.approval_id}`, { form: { csrf, decision: "approve" } })
      expect(again.status).toBe(403)
      expect(yield* rowState(row.approval_id)).toBe("pending")
      const notice = yield* b.call("GET", "/inbox/signin?expired=1")
      expect(notice.body).toContain("Your session ended.")
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("an expired session's POST is refused with the sign-in page", () => {
    const h = makeHarness({ sessionTtl: "10 minutes" })
    return Effect.gen(function* () {
      const row = yield* pushSkill("alice", "s", skillMd("s"))
      const b = yield* makeBrowser
      const csrf = yield* b.signInAsAdmin
      yield* TestClock.adjust("11 minutes")
      const r = yield* b.call("POST", `/inbox/rows/${row.approval_id}`, { form: { csrf, decision: "approve" } })
      expect(r.status).toBe(403)
      expect(r.body).toContain("Your session ended.")
      expect(yield* rowState(row.approval_id)).toBe("pending")
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("sign-out needs the CSRF token, then ends the session", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const b = yield* makeBrowser
      const csrf = yield* b.signInAsAdmin
      expect((yield* b.call("POST", "/inbox/signout", { form: { csrf: "wrong" } })).status).toBe(403)
      expect((yield* b.call("GET", "/inbox")).status).toBe(200)
      const out = yield* b.call("POST", "/inbox/signout", { form: { csrf } })
      expect(out.status).toBe(303)
      expect(out.location).toBe("/inbox/signin?signed_out=1")
      expect(out.setCookies.find((c) => c.startsWith("agent_bridge_inbox="))).toMatch(/Max-Age=0/)
      expect((yield* b.call("GET", "/inbox/signin?signed_out=1")).body).toContain("You are signed out.")
      expect((yield* b.call("GET", "/inbox")).status).toBe(303)
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("sessions are separate: one browser's sign-out leaves another signed in", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const a = yield* makeBrowser
      const b = yield* makeBrowser
      const csrfA = yield* a.signInAsAdmin
      const csrfB = yield* b.signInAsAdmin
      expect(csrfA).not.toBe(csrfB)
      yield* a.call("POST", "/inbox/signout", { form: { csrf: csrfA } })
      expect((yield* b.call("GET", "/inbox")).status).toBe(200)
      // A's token is not B's: B's form with A's token is refused.
      expect((yield* b.call("POST", "/inbox/signout", { form: { csrf: csrfA } })).status).toBe(403)
    }).pipe(Effect.provide(h.layer))
  })
})
