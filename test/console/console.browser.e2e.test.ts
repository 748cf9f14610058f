/**
 * The operator's console in headless Chromium against a whole daemon (built-in Hermes simulator):
 * the runs list with client, agent, status, age, last event and tokens; a run started meanwhile shows
 * up without a reload; filters by client, status and agent; a run's detail with its output window and
 * events; the operator stops a live run from the page (recorded as the operator's stop, and the page
 * follows it to "cancelled"); the clients view with scopes, use, runs and tokens, rotate (the new key
 * shown once, the old one refused) and revoke. Screenshots go to test-artifacts/console/.
 */
import type { Client } from "@modelcontextprotocol/client"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectMcp, startDaemon, testConfig, type TestDaemon } from "../support/daemon.ts"
import { type Browser, launchChromium, skipBrowserTests } from "../inbox/chromium.ts"
import { eventually } from "./support.ts"

const STEP = 60_000
const LIVE_WAIT_MS = 15_000
const ARTIFACTS = path.resolve("test-artifacts", "console")

const shot = async (page: Page, name: string) => {
  fs.mkdirSync(ARTIFACTS, { recursive: true })
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true })
}

type Structured = { structuredContent?: { run_id: string; status: string }; isError?: boolean }

describe.skipIf(await skipBrowserTests())("the operator's console in Chromium", () => {
  let daemon: TestDaemon
  let browser: Browser
  let laptop: Client
  let ci: Client
  let ciKey = ""
  const ids = { quick: "", slow: "", ci: "", later: "" }

  const url = (p: string) => `${daemon.url}${p}`
  const page = () => browser.page
  const run = async (mcp: Client, input: string) =>
    ((await mcp.callTool({ name: "agent_run", arguments: { agent: "hermes", input } })) as Structured).structuredContent!.run_id
  const statusOf = async (mcp: Client, id: string) =>
    ((await mcp.callTool({ name: "agent_run_status", arguments: { run_id: id } })) as Structured).structuredContent?.status

  beforeAll(async () => {
    daemon = await startDaemon(testConfig({ hermes: { url: "sim" } }))
    laptop = await connectMcp(daemon.url, await daemon.addClient("laptop", ["agents", "memory"]))
    ciKey = await daemon.addClient("ci")
    ci = await connectMcp(daemon.url, ciKey)
    ids.quick = await run(laptop, "summarise the changelog")
    ids.slow = await run(laptop, "[sim:slow=120s] refactor the parser")
    ids.ci = await run(ci, "run the nightly checks")
    await eventually(async () => ((await statusOf(laptop, ids.quick)) === "completed" && (await statusOf(ci, ids.ci)) === "completed" ? true : undefined))
    browser = await launchChromium()
    const p = page()
    await p.goto(url("/inbox/runs"))
    expect(new URL(p.url()).pathname).toBe("/inbox/signin")
    await p.getByLabel("Admin key").fill(daemon.adminKey)
    await p.getByRole("button", { name: "Sign in" }).click()
    await p.waitForURL(url("/inbox"))
  }, STEP)

  afterAll(async () => {
    await browser?.close()
    await laptop?.close()
    await ci?.close().catch(() => undefined)
    await daemon?.close()
  })

  it("is refused without a session (page, feed and stop)", async () => {
    const anonymous = await fetch(url("/inbox/runs"), { redirect: "manual" })
    expect(anonymous.status).toBe(303)
    expect(anonymous.headers.get("location")).toBe("/inbox/signin")
    expect((await fetch(url("/inbox/console/events"))).status).toBe(403)
    expect((await fetch(url(`/inbox/runs/${ids.slow}/stop`), { method: "POST", body: new URLSearchParams({ csrf: "x" }) })).status).toBe(403)
    expect((await fetch(url("/inbox/clients/ci"), { method: "POST", body: new URLSearchParams({ action: "revoke" }) })).status).toBe(403)
    expect(await statusOf(laptop, ids.slow)).toBe("running")
  }, STEP)

  it("lists live and recent runs, and shows a new one without a reload", async () => {
    const p = page()
    await p.getByRole("link", { name: "Runs" }).click()
    await p.waitForURL(url("/inbox/runs"))
    expect(await p.getByRole("heading", { level: 1 }).textContent()).toBe("Runs")
    expect(p.url()).toBe(url("/inbox/runs"))
    const rows = p.locator("#runs tbody tr")
    expect(await rows.count()).toBe(3)
    // Live first.
    expect(await rows.first().getAttribute("data-run")).toBe(ids.slow)
    const quick = p.locator(`tr[data-run="${ids.quick}"]`)
    const text = (await quick.textContent()) ?? ""
    expect(text).toContain("laptop")
    expect(text).toContain("hermes")
    expect(text).toContain("completed")
    expect(text).toContain("run.completed")
    expect(text).toMatch(/\d+ s ago/)
    expect(Number((await quick.locator("td.num").textContent())?.replace(/,/g, ""))).toBeGreaterThan(0)
    expect(await p.locator(`tr[data-run="${ids.slow}"]`).textContent()).toContain("running")

    await p.evaluate(() => { (window as unknown as { notReloaded: boolean }).notReloaded = true })
    ids.later = await run(ci, "[sim:slow=1s] tidy the docs")
    await p.locator(`tr[data-run="${ids.later}"]`).waitFor({ timeout: LIVE_WAIT_MS })
    expect(await p.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true)
    await shot(p, "01-runs-list")
  }, STEP)

  it("filters by client, status and agent (a plain GET form)", async () => {
    const p = page()
    await p.locator("#filter-client").selectOption("ci")
    // A live update between choosing and sending (a new run swaps the page's <main> in) keeps the
    // choice: it once reset the select, so Filter sent no client and the URL never matched.
    const version = await p.locator("main[data-version]").getAttribute("data-version")
    await run(laptop, "[sim:slow=1s] a run while the filter is chosen")
    await p.waitForFunction((v) => document.querySelector("main[data-version]")?.getAttribute("data-version") !== v, version, { timeout: LIVE_WAIT_MS })
    expect(await p.locator("#filter-client").inputValue()).toBe("ci")
    await p.getByRole("button", { name: "Filter" }).click()
    await p.waitForURL((u) => u.searchParams.get("client") === "ci")
    const ciRows = await p.locator("#runs tbody tr").evaluateAll((trs) => trs.map((t) => t.getAttribute("data-run")))
    expect(ciRows.sort()).toEqual([ids.ci, ids.later].sort())
    await shot(p, "02-runs-filtered-by-client")

    await p.goto(url("/inbox/runs?status=running&agent=hermes"))
    expect(await p.locator("#runs tbody tr").evaluateAll((trs) => trs.map((t) => t.getAttribute("data-run")))).toContain(ids.slow)
    expect(await p.locator(`tr[data-run="${ids.quick}"]`).count()).toBe(0)
    await p.goto(url("/inbox/runs?agent=hermes/nobody"))
    expect(await p.getByText("No run matches.").count()).toBe(1)
    const bad = await p.goto(url("/inbox/runs?status=sleeping"))
    expect(bad?.status()).toBe(400)
    expect(await p.locator("main").textContent()).toContain("is not a run status")
  }, STEP)

  it("shows a run's facts, output window and events", async () => {
    const p = page()
    await p.goto(url("/inbox/runs"))
    await p.locator(`tr[data-run="${ids.quick}"] a`).click()
    await p.waitForURL(url(`/inbox/runs/${ids.quick}`))
    expect(await p.getByRole("heading", { level: 1 }).textContent()).toBe(`Run ${ids.quick}`)
    expect(await p.locator("#output").textContent()).toContain("Everything is in order.")
    const types = await p.locator("#events tbody tr td:nth-child(2)").allTextContents()
    expect(types[0]).toBe("run.started")
    expect(types.at(-1)).toBe("run.completed")
    // A finished run offers no stop.
    expect(await p.locator("#stop-run").count()).toBe(0)
    await shot(p, "03-run-detail")
  }, STEP)

  it("stops a live run from the page, as the operator, and follows it to its end", async () => {
    const p = page()
    await p.goto(url(`/inbox/runs/${ids.slow}`))
    expect(await p.locator("#run-status").textContent()).toContain("running")
    await p.locator("#stop-run").click()
    await p.waitForURL((u) => u.pathname === `/inbox/runs/${ids.slow}` && u.searchParams.get("stop") === "requested")
    expect(await p.getByRole("status").filter({ hasText: "Stop requested" }).count()).toBe(1)
    // Hermes confirms; the page updates itself to the end.
    await p.locator("#run-status", { hasText: "cancelled" }).waitFor({ timeout: LIVE_WAIT_MS })
    const stopping = p.locator("#events tr", { hasText: "run.stopping" })
    expect(await stopping.textContent()).toContain('"by":"operator"')
    expect(await stopping.textContent()).toContain('"via":"page"')
    // The client sees the same run ended, and who stopped it.
    expect(await statusOf(laptop, ids.slow)).toBe("cancelled")
    await shot(p, "04-run-stopped-by-operator")
  }, STEP)

  it("lists clients with scopes, use, runs and tokens; rotates one (the key shown once) and revokes another", async () => {
    const p = page()
    await p.getByRole("link", { name: "Clients" }).click()
    await p.waitForURL(url("/inbox/clients"))
    const row = (name: string) => p.locator(`tr[data-client="${name}"]`)
    const cells = async (name: string) => row(name).locator("td").allTextContents()
    const [scopes, , used, live, runs24, tokens24] = await cells("laptop")
    expect(scopes).toBe("agents, memory")
    expect(used).toMatch(/ago/)
    expect(live).toBe("0")
    expect(runs24).toBe("3") // quick, slow and the run started while the filter was chosen
    expect(Number(tokens24?.replace(/,/g, ""))).toBeGreaterThan(0)
    expect((await cells("ci"))[4]).toBe("2")
    await shot(p, "05-clients")

    await p.locator("#rotate-ci").click()
    const key = (await p.locator("#new-key").textContent()) ?? ""
    expect(key).toMatch(/^hal0bk_/)
    expect(await p.getByText("This is the only time the new one is shown").count()).toBe(1)
    await shot(p, "06-client-rotated-key-shown-once")
    // The old key is refused, the new one works.
    const old = await fetch(url("/mcp/agents/mcp"), { method: "POST", headers: { authorization: `Bearer ${ciKey}`, "content-type": "application/json" }, body: "{}" })
    expect(old.status).toBe(403)
    const fresh = await connectMcp(daemon.url, key)
    await fresh.close()
    // Shown once: the clients page never carries it.
    await p.goto(url("/inbox/clients"))
    expect(await p.content()).not.toContain(key)

    await p.locator("#revoke-laptop").click()
    await p.waitForURL((u) => u.searchParams.get("revoked") === "laptop")
    expect(await p.locator("p.notice").textContent()).toContain("Revoked client laptop")
    expect(await row("laptop").textContent()).toContain("revoked")
    await shot(p, "07-client-revoked")
  }, STEP)
})
