/**
 * The inbox page inside the whole daemon over real HTTP: routed after the Host guard, refused
 * without a session, a skill pushed with `agent_skill_put` over MCP approved through the page
 * lands on disk, and an open page's event stream hears a decision `agent-bridge inbox` commits from
 * its own connection to the database.
 */
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseArgs } from "../../src/cli/args.ts"
import { inboxCommand } from "../../src/cli/inbox.ts"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { InboxServices } from "../../src/daemon/teachServices.ts"
import { TestDbFor } from "../support/testDb.ts"
import { simpleHermes } from "../teach/support.ts"
import { connectMcp, startDaemon, testConfig, type TestDaemon } from "../support/daemon.ts"
import { HermesClientTest } from "../../src/hermes/client/HermesClientTest.ts"
import { makeClient } from "./fetchClient.ts"

/** A raw GET, so the Host header can be set (fetch forbids it). */
const rawGet = (url: string, host: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const u = new URL(url)
    http
      .get({ host: u.hostname, port: u.port, path: u.pathname, headers: { host } }, (res) => {
        let data = ""
        res.on("data", (c) => (data += c))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data }))
      })
      .on("error", reject)
  })

describe("the inbox page in the daemon", () => {
  let daemon: TestDaemon
  beforeAll(async () => {
    daemon = await startDaemon(testConfig(), HermesClientTest())
  })
  afterAll(async () => daemon.close())

  it("is behind the Host guard", async () => {
    const r = await rawGet(`${daemon.url}/inbox/signin`, "evil.example")
    expect(r.status).toBe(403)
    expect(r.body).toContain("auth.forbidden")
  })

  it("refuses everything without a session, even with a bearer key", async () => {
    const res = await fetch(`${daemon.url}/inbox`, { redirect: "manual", headers: { authorization: `Bearer ${daemon.adminKey}` } })
    expect(res.status).toBe(303)
    expect(res.headers.get("location")).toBe("/inbox/signin")
    expect(res.headers.get("x-frame-options")).toBe("DENY")
    expect((await fetch(`${daemon.url}/inbox/events`)).status).toBe(403)
  })

  it("approves a skill pushed over MCP, and the skill is written", async () => {
    const key = await daemon.addClient("laptop")
    const mcp = await connectMcp(daemon.url, key)
    const md = "---\nname: e2e-skill\ndescription: Written through the inbox page.\n---\n# Steps\n"
    const put = await mcp.callTool({ name: "agent_skill_put", arguments: { name: "e2e-skill", skill_md: md, files: { "notes.md": "hello\n" } } })
    const queued = (put as { structuredContent?: { approval_id?: string } }).structuredContent
    const id = queued?.approval_id ?? ""
    expect(id).toMatch(/^apr_/)
    await mcp.close()

    const c = makeClient(daemon.url)
    expect((await c.signIn(daemon.adminKey)).status).toBe(303)
    const list = await c.send("GET", "/inbox")
    expect(list.body).toContain("e2e-skill")
    expect(list.body).toContain("<td>laptop</td>")
    const card = await c.send("GET", `/inbox/rows/${id}`)
    expect(card.body).toContain("Written through the inbox page.")
    const approved = await c.send("POST", `/inbox/rows/${id}`, { csrf: c.csrfOf(card.body), decision: "approve" })
    expect(approved.status).toBe(303)
    const dir = path.join(daemon.config.dropinDir, "e2e-skill")
    expect(fs.readFileSync(path.join(dir, "SKILL.md"), "utf8")).toBe(md)
    expect(fs.readFileSync(path.join(dir, "notes.md"), "utf8")).toBe("hello\n")
  })

  it("tells an open page about a row the CLI decides from another connection", async () => {
    const key = await daemon.addClient("desk")
    const mcp = await connectMcp(daemon.url, key)
    const md = "---\nname: cli-decided\ndescription: Denied from a terminal.\n---\n# Steps\n"
    const put = await mcp.callTool({ name: "agent_skill_put", arguments: { name: "cli-decided", skill_md: md } })
    const id = (put as { structuredContent?: { approval_id?: string } }).structuredContent?.approval_id ?? ""
    await mcp.close()

    const c = makeClient(daemon.url)
    await c.signIn(daemon.adminKey)
    const res = await fetch(`${daemon.url}/inbox/events`, { headers: { cookie: c.cookies() } })
    expect(res.status).toBe(200)
    const reader = res.body!.getReader()
    const decoder = new TextDecoder()
    let buffer = ""
    const nextInbox = async (): Promise<string | null> => {
      for (;;) {
        const match = /event: inbox\ndata: (\S+)\n\n/.exec(buffer)
        if (match !== null) {
          buffer = buffer.slice(match.index + match[0].length)
          return match[1] ?? null
        }
        const { value, done } = await reader.read()
        if (done) return null
        buffer += decoder.decode(value, { stream: true })
      }
    }
    const withRow = await nextInbox()

    // `agent-bridge inbox deny ID`: the CLI's own services over its own connection to bridge.db.
    const cli = InboxServices.pipe(
      Layer.provideMerge(TestDbFor(daemon.config.dataDir)),
      Layer.provideMerge(simpleHermes),
      Layer.provideMerge(AppConfigLive(daemon.config))
    )
    const out = await Effect.runPromise(inboxCommand(parseArgs(["inbox", "deny", id])).pipe(Effect.provide(cli), Effect.scoped))
    expect(out).toBe(`${id}: denied.`)

    const afterDeny = await nextInbox()
    expect(afterDeny).not.toBe(withRow)
    const page = await c.send("GET", "/inbox")
    expect(page.body).toContain(`data-version="${afterDeny}"`)
    expect(page.body).not.toContain("cli-decided")
    await reader.cancel()
  })
})
