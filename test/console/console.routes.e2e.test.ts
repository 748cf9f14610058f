/**
 * The console's routes over real HTTP, the refusals in particular: security headers, a stop or a
 * client action with a wrong CSRF token or from another origin, an unknown run or client, a bad
 * action, offset or status, another method; and the console's event stream for a session.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CONTENT_SECURITY_POLICY } from "../../src/edge/inbox/security.ts"
import { connectMcp, startDaemon, testConfig, type TestDaemon } from "../support/daemon.ts"
import { makeClient } from "../inbox/fetchClient.ts"

describe("console routes", () => {
  let daemon: TestDaemon
  let web: ReturnType<typeof makeClient>
  let csrf = ""
  let runId = ""

  beforeAll(async () => {
    daemon = await startDaemon(testConfig({ hermes: { url: "sim" } }))
    const mcp = await connectMcp(daemon.url, await daemon.addClient("desk"))
    const started = (await mcp.callTool({ name: "agent_run", arguments: { agent: "hermes", input: "[sim:slow=60s] wait a while" } })) as unknown as { structuredContent: { run_id: string } }
    runId = started.structuredContent.run_id
    await mcp.close()
    web = makeClient(daemon.url)
    expect((await web.signIn(daemon.adminKey)).status).toBe(303)
    csrf = web.csrfOf((await web.send("GET", "/inbox/runs")).body)
    expect(csrf).not.toBe("")
  }, 60_000)
  afterAll(async () => daemon?.close())

  it("serves the pages with the inbox's security headers", async () => {
    for (const p of ["/inbox/runs", `/inbox/runs/${runId}`, "/inbox/clients"]) {
      const r = await web.send("GET", p)
      expect(r.status, p).toBe(200)
      expect(r.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY)
      expect(r.headers.get("cache-control")).toBe("no-store")
      expect(r.body).toContain('data-feed="/inbox/console/events"')
    }
  })

  it("shows one replica, this daemon, following the live run, with its last heartbeat", async () => {
    const list = (await web.send("GET", "/inbox/runs")).body
    expect(list).toContain("One replica: this daemon follows every run.")
    const rows = list.match(/<tr data-replica="[^"]*"/g) ?? []
    expect(rows).toHaveLength(1)
    expect(list).toMatch(/<tr data-replica="[^"]+" class="self">/)
    const row = new RegExp(`<tr data-run="${runId}">[\\s\\S]*?<td class="replica" data-follower="([^"]+)">([^<]*)</td>`).exec(list)
    expect(row?.[2]).toContain("(the only replica)")
    const page = (await web.send("GET", `/inbox/runs/${runId}`)).body
    expect(page).toMatch(/<dd id="run-follower" data-follower="[^"]+">[^<]*\(the only replica\)<\/dd>/)
  })

  it("refuses a stop without the session's CSRF token or from another origin, and stops nothing", async () => {
    expect((await web.send("POST", `/inbox/runs/${runId}/stop`, { csrf: "wrong" })).status).toBe(403)
    const foreign = await fetch(`${daemon.url}/inbox/runs/${runId}/stop`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: web.cookies(), origin: "http://evil.example", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf }).toString()
    })
    expect(foreign.status).toBe(403)
    expect((await web.send("GET", `/inbox/runs/${runId}`)).body).toContain("Stop this run")
  })

  it("answers unknown runs and clients, bad actions and bad pages clearly", async () => {
    const stopUnknown = await web.send("POST", "/inbox/runs/run_nope/stop", { csrf })
    expect(stopUnknown.status).toBe(404)
    expect(stopUnknown.body).toContain("bridge.run_not_found")
    expect((await web.send("GET", "/inbox/runs/run_nope")).status).toBe(404)
    expect((await web.send("GET", `/inbox/runs/${runId}?offset=-1`)).status).toBe(400)
    expect((await web.send("GET", `/inbox/runs/${runId}?since=abc`)).status).toBe(400)
    expect((await web.send("GET", "/inbox/runs?status=sleeping")).status).toBe(400)
    expect((await web.send("POST", "/inbox/clients/desk", { csrf, action: "delete" })).status).toBe(422)
    const unknownClient = await web.send("POST", "/inbox/clients/nobody", { csrf, action: "rotate" })
    expect(unknownClient.status).toBe(404)
    expect((await web.send("PUT", "/inbox/runs")).status).toBe(405)
    expect((await web.send("GET", "/inbox/runs/x/y/z")).status).toBe(404)
  })

  it("stops with the token, as the operator, once", async () => {
    const r = await web.send("POST", `/inbox/runs/${runId}/stop`, { csrf })
    expect(r.status).toBe(303)
    expect(r.location).toBe(`/inbox/runs/${runId}?stop=requested`)
    const page = await web.send("GET", r.location ?? "")
    expect(page.body).toContain("Stop requested")
    expect(page.body).not.toContain('id="stop-run"')
  })

  it("streams the console's version to a signed-in page only", async () => {
    expect((await fetch(`${daemon.url}/inbox/console/events`)).status).toBe(403)
    const ctl = new AbortController()
    const res = await fetch(`${daemon.url}/inbox/console/events`, { headers: { cookie: web.cookies() }, signal: ctl.signal })
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("text/event-stream")
    const reader = res.body!.getReader()
    let text = ""
    const deadline = Date.now() + 10_000
    while (!text.includes("event: inbox") && Date.now() < deadline) {
      const { value, done } = await reader.read()
      if (done) break
      text += new TextDecoder().decode(value)
    }
    ctl.abort()
    expect(text).toMatch(/^retry: \d+/)
    expect(text).toMatch(/event: inbox\ndata: [0-9a-f]{16}\n/)
  })
})
