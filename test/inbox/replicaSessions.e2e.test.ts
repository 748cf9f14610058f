/**
 * The inbox page from every replica (issue 37 item 6): two bridge daemons on one PostgreSQL behind
 * nginx configured as docs/DEPLOY.md says (`startFleet`: round-robin, `bridge.trusted_proxies`
 * naming nginx). The operator signs in once through nginx and stays signed in for every `GET /inbox`
 * after it, whichever replica answers (nginx's access log shows both did); each replica, asked
 * directly, honours the cookie; a sign-out through nginx ends the session on both; and wrong keys
 * spread over the replicas by nginx lock the address on both, since the count is in the database.
 */
import { afterAll, describe, expect, it } from "vitest"
import { type Fleet, startFleet } from "../support/fleet.ts"
import { usePostgres } from "../support/postgres.ts"
import { makeClient } from "./fetchClient.ts"

const REPLICAS = 2

describe("the inbox's sessions over two replicas behind nginx", () => {
  const pg = usePostgres()
  let fleet: Fleet | undefined
  let starting: Promise<Fleet> | undefined
  /** One fleet for the file (a daemon costs a few seconds to start); a failed start fails the rest at once. */
  const setUp = (ctx: { readonly skip: (note?: string) => void }) =>
    (starting ??= pg.database(ctx).then(async (storageUrl) => (fleet = await startFleet({ storageUrl, replicas: REPLICAS }))))

  afterAll(async () => {
    await fleet?.stop()
  }, 60_000)

  it("signs in once through nginx and stays signed in for every GET /inbox, on both replicas; a sign-out through nginx ends it on both", async (ctx) => {
    const f = await setUp(ctx)
    const proxy = f.nginx()
    const browser = makeClient(f.url())
    const signedIn = await browser.signIn(f.adminKey)
    expect(signedIn.status, signedIn.body).toBe(303)
    expect(signedIn.location).toBe("/inbox")

    const mark = proxy.passed().length
    for (let i = 0; i < 8; i++) {
      const page = await browser.send("GET", "/inbox")
      expect(page.status, `GET /inbox #${i + 1} answered ${page.status} ${page.location ?? ""}`).toBe(200)
      expect(page.body).toContain('action="/inbox/signout"')
    }
    const pages = proxy.passed().slice(mark).filter((r) => r.method === "GET")
    expect(pages).toHaveLength(8)
    expect(new Set(pages.map((r) => r.upstreams.at(-1))).size).toBe(REPLICAS)

    // Each replica directly, with the same cookie: signed in, the same session (its CSRF token).
    const csrf = browser.csrfOf((await browser.send("GET", "/inbox")).body)
    for (const replica of f.replicas) {
      const direct = await fetch(`${replica.url}/inbox`, { redirect: "manual", headers: { cookie: browser.cookies() } })
      expect(direct.status, replica.name).toBe(200)
      expect(browser.csrfOf(await direct.text())).toBe(csrf)
    }

    // A sign-out through nginx (one replica) ends the session on both.
    const cookie = browser.cookies()
    const out = await browser.send("POST", "/inbox/signout", { csrf })
    expect(out.status).toBe(303)
    expect(out.location).toBe("/inbox/signin?signed_out=1")
    for (const replica of f.replicas) {
      const after = await fetch(`${replica.url}/inbox`, { redirect: "manual", headers: { cookie } })
      expect(after.status, replica.name).toBe(303)
      expect(after.headers.get("location")).toBe("/inbox/signin?expired=1")
    }
  }, 420_000)

  it("five wrong keys spread over both replicas by nginx lock the address on both", async (ctx) => {
    const f = await setUp(ctx)
    const proxy = f.nginx()
    const mark = proxy.passed().length
    for (let i = 0; i < 5; i++) {
      expect((await makeClient(f.url()).signIn("hal0bk_not0the0admin0key0000000000000000")).status).toBe(403)
      // A third request per attempt: round-robin then sends the next attempt's POST to the other replica.
      expect((await fetch(`${f.url()}/inbox/static/inbox.css`)).status).toBe(200)
    }
    const posts = proxy.passed().slice(mark).filter((r) => r.method === "POST")
    expect(new Set(posts.map((r) => r.upstreams.at(-1))).size).toBe(REPLICAS)
    // The right key now, through nginx and through each replica as nginx would pass it: refused.
    const locked = await makeClient(f.url()).signIn(f.adminKey)
    expect(locked.status).toBe(429)
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0)
    for (const replica of f.replicas) expect((await makeClient(replica.url).signIn(f.adminKey)).status, replica.name).toBe(429)
  }, 420_000)
})
