/**
 * The inbox page in headless Chromium against a whole daemon (with the built-in Hermes simulator):
 * refused without sign-in; sign in; a skill pushed over MCP appears without a reload, its card shows
 * the files and the diff, approving writes it to disk; another is denied from the keyboard; a run
 * waiting for approval is approved on the page and continues to the end; sign out. Each step saves
 * a screenshot under test-artifacts/inbox/.
 */
import type { Client } from "@modelcontextprotocol/client"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sha256Hex } from "../../src/domain/skills/card.ts"
import { connectMcp, startDaemon, testConfig, type TestDaemon } from "../support/daemon.ts"
import { type Browser, launchChromium, screenshot, skipBrowserTests } from "./chromium.ts"
import { makeClient } from "./fetchClient.ts"

const STEP_TIMEOUT = 60_000
/** How long the page may take to show a change pushed elsewhere (its event stream polls every second). */
const LIVE_WAIT_MS = 15_000

const structured = <A>(result: unknown): A => (result as { structuredContent: A }).structuredContent

const skillMd = (name: string, description: string, body: string) => `---\nname: ${name}\ndescription: ${description}\n---\n${body}`

describe.skipIf(await skipBrowserTests())("the inbox in Chromium", () => {
  let daemon: TestDaemon
  let browser: Browser
  let mcp: Client

  beforeAll(async () => {
    daemon = await startDaemon(testConfig({ hermes: { url: "sim" } }))
    mcp = await connectMcp(daemon.url, await daemon.addClient("laptop"))
    browser = await launchChromium()
  }, STEP_TIMEOUT)

  afterAll(async () => {
    await browser?.close()
    await mcp?.close()
    await daemon?.close()
  })

  const page = () => browser.page
  const url = (p: string) => `${daemon.url}${p}`

  it("refuses the inbox without sign-in", async () => {
    const p = page()
    await p.goto(url("/inbox"))
    expect(new URL(p.url()).pathname).toBe("/inbox/signin")
    expect(await p.getByRole("heading", { level: 1 }).textContent()).toBe("Sign in")
    expect(await p.locator("table").count()).toBe(0)
    // The event stream and a decision are refused outright (same browser, no session cookie).
    expect((await p.request.get(url("/inbox/events"))).status()).toBe(403)
    expect((await p.request.post(url("/inbox/rows/apr_x"), { form: { decision: "approve" } })).status()).toBe(403)
    await screenshot(p, "01-refused-without-sign-in")

    await p.getByLabel("Admin key").fill("hal0bk_not-the-admin-key")
    await p.getByRole("button", { name: "Sign in" }).click()
    expect(await p.getByRole("alert").textContent()).toContain("That is not the admin key.")
    await screenshot(p, "02-wrong-key")
  }, STEP_TIMEOUT)

  it("signs in with the admin key", async () => {
    const p = page()
    await p.getByLabel("Admin key").fill(daemon.adminKey)
    await p.getByRole("button", { name: "Sign in" }).click()
    await p.waitForURL(url("/inbox"))
    expect(await p.getByRole("heading", { level: 1 }).textContent()).toBe("Pending")
    expect(await p.getByText("Nothing is waiting for you.").count()).toBe(1)
    const cookies = await browser.context.cookies(url("/inbox"))
    const session = cookies.find((c) => c.name === "agent_bridge_inbox")
    expect(session?.httpOnly).toBe(true)
    expect(session?.sameSite).toBe("Strict")
    await screenshot(p, "03-signed-in-empty")
  }, STEP_TIMEOUT)

  const installedMd = skillMd("release-notes", "Writes release notes.", "# Steps\n\n1. Read the git log.\n2. Group by area.\n")
  const proposedMd = skillMd("release-notes", "Writes release notes.", "# Steps\n\n1. Read the merged pull requests.\n2. Group by area.\n3. Link each entry.\n")
  const template = "## Added\n\n## Fixed\n"
  let putId = ""

  it("shows a pushed skill without a reload, with its files and the diff", async () => {
    const p = page()
    const dir = path.join(daemon.config.dropinDir, "release-notes")
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, "SKILL.md"), installedMd)
    await p.evaluate(() => { (window as unknown as { notReloaded: boolean }).notReloaded = true })

    const queued = structured<{ approval_id: string }>(
      await mcp.callTool({ name: "agent_skill_put", arguments: { name: "release-notes", skill_md: proposedMd, files: { "template.md": template } } })
    )
    putId = queued.approval_id
    const row = p.locator(`tr[data-row="${putId}"]`)
    await row.waitFor({ timeout: LIVE_WAIT_MS })
    expect(await p.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true)
    expect(await row.textContent()).toContain("laptop")
    expect(await row.textContent()).toMatch(/\d+ s ago/)
    expect(await p.locator("#pending-count").textContent()).toBe("1")
    await screenshot(p, "04-skill-arrived-live")

    await row.getByRole("link", { name: /Review/ }).click()
    await p.waitForURL(url(`/inbox/rows/${putId}`))
    expect(await p.getByRole("heading", { level: 1 }).textContent()).toBe("Skill put: release-notes")
    const body = (await p.locator("main").textContent()) ?? ""
    expect(body).toContain(sha256Hex(proposedMd))
    expect(body).toContain(sha256Hex(template))
    expect(body).toContain("Read the merged pull requests.")
    expect(await p.locator("pre", { hasText: "## Fixed" }).count()).toBeGreaterThan(0)
    expect(await p.locator(".diff .remove", { hasText: "-1. Read the git log." }).count()).toBe(1)
    expect(await p.locator(".diff .add", { hasText: "+1. Read the merged pull requests." }).count()).toBe(1)
    await screenshot(p, "05-skill-card-with-diff")
  }, STEP_TIMEOUT)

  it("approves it, and the skill is written on disk", async () => {
    const p = page()
    await p.getByRole("button", { name: "Approve and install" }).click()
    await p.waitForURL((u) => u.pathname === "/inbox" && u.searchParams.get("decided") === putId)
    expect(await p.getByRole("status").filter({ hasText: "Approved" }).textContent()).toContain("release-notes")
    const dir = path.join(daemon.config.dropinDir, "release-notes")
    expect(fs.readFileSync(path.join(dir, "SKILL.md"), "utf8")).toBe(proposedMd)
    expect(fs.readFileSync(path.join(dir, "template.md"), "utf8")).toBe(template)
    await screenshot(p, "06-skill-approved")
  }, STEP_TIMEOUT)

  it("denies another from the keyboard, and nothing is written", async () => {
    const p = page()
    const queued = structured<{ approval_id: string }>(
      await mcp.callTool({ name: "agent_skill_put", arguments: { name: "risky-skill", skill_md: skillMd("risky-skill", "Does risky things.", "# Steps\n\n1. Be careful.\n") } })
    )
    await p.locator(`tr[data-row="${queued.approval_id}"]`).waitFor({ timeout: LIVE_WAIT_MS })
    // Keyboard only: tab to the row's link, open it, tab from Approve to Deny, press Enter.
    await p.locator(`#review-${queued.approval_id}`).focus()
    await p.keyboard.press("Enter")
    await p.waitForURL(url(`/inbox/rows/${queued.approval_id}`))
    await p.getByRole("button", { name: "Approve and install" }).focus()
    await p.keyboard.press("Tab")
    expect(await p.evaluate(() => document.activeElement?.textContent)).toBe("Deny")
    await screenshot(p, "07-deny-focused")
    await p.keyboard.press("Enter")
    await p.waitForURL((u) => u.searchParams.get("decided") === queued.approval_id)
    expect(fs.existsSync(path.join(daemon.config.dropinDir, "risky-skill"))).toBe(false)

    await p.getByRole("link", { name: "History" }).click()
    const denied = p.locator(`tr[data-row="${queued.approval_id}"]`)
    expect(await denied.textContent()).toContain("Denied")
    expect(await p.locator(`tr[data-row="${putId}"]`).textContent()).toContain("Approved")
    await screenshot(p, "08-history")
  }, STEP_TIMEOUT)

  it("drops a row decided elsewhere from the open page without a reload", async () => {
    const p = page()
    await p.goto(url("/inbox"))
    await p.evaluate(() => { (window as unknown as { notReloaded: boolean }).notReloaded = true })
    const queued = structured<{ approval_id: string }>(
      await mcp.callTool({ name: "agent_skill_put", arguments: { name: "elsewhere", skill_md: skillMd("elsewhere", "Decided in another session.", "# Steps\n") } })
    )
    const row = p.locator(`tr[data-row="${queued.approval_id}"]`)
    await row.waitFor({ timeout: LIVE_WAIT_MS })
    const other = makeClient(daemon.url)
    expect((await other.signIn(daemon.adminKey)).status).toBe(303)
    expect((await other.decide(queued.approval_id, "deny")).status).toBe(303)
    await row.waitFor({ state: "detached", timeout: LIVE_WAIT_MS })
    expect(await p.locator("#pending-count").textContent()).toBe("0")
    expect(await p.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true)
    await screenshot(p, "09-decided-elsewhere")
  }, STEP_TIMEOUT)

  it("answers a run approval, and the run continues to the end", async () => {
    const p = page()
    await p.goto(url("/inbox"))
    const run = structured<{ run_id: string }>(
      await mcp.callTool({ name: "agent_run", arguments: { agent: "hermes", input: "[sim:approval] tidy the workspace" } })
    )
    const row = p.locator("tr[data-row]", { hasText: "Run approval" })
    await row.waitFor({ timeout: LIVE_WAIT_MS })
    expect(await row.textContent()).toContain("laptop")
    await screenshot(p, "10-run-approval-arrived")
    await row.getByRole("link", { name: /Review/ }).click()
    const main = (await p.locator("main").textContent()) ?? ""
    expect(main).toContain(run.run_id)
    expect(main).toContain("recursive delete")
    expect(main).toContain("laptop")
    expect(await p.getByRole("button", { name: "Approve once" }).count()).toBe(1)
    await screenshot(p, "11-run-approval-card")
    await p.getByRole("button", { name: "Approve once" }).click()
    await p.waitForURL((u) => u.pathname === "/inbox" && u.searchParams.has("decided"))
    expect(await p.getByRole("status").filter({ hasText: "Approved (once)" }).count()).toBe(1)

    const done = structured<{ status: string; output: string | null }>(
      await mcp.callTool({ name: "agent_run_wait", arguments: { run_id: run.run_id, timeout_s: 30 } })
    )
    expect(done.status).toBe("completed")
    expect(done.output).toContain("after approval")
    await screenshot(p, "12-run-approved")
  }, STEP_TIMEOUT)

  it("signs out, and the inbox is closed again", async () => {
    const p = page()
    await p.getByRole("button", { name: "Sign out" }).click()
    await p.waitForURL((u) => u.pathname === "/inbox/signin")
    await p.getByText("You are signed out.").waitFor({ timeout: 10_000 })
    expect(await p.getByText("You are signed out.").count()).toBe(1)
    await p.goto(url("/inbox/history"))
    expect(new URL(p.url()).pathname).toBe("/inbox/signin")
    await screenshot(p, "13-signed-out")
  }, STEP_TIMEOUT)
})
