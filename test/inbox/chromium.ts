/**
 * A Chromium driven by playwright-core (which never downloads a browser): Debian's where it runs,
 * else one the test run installs itself from a package registry (test/support/chromiumSetup.ts).
 * When none can be had the browser tests fail loudly, unless AGENT_BRIDGE_SKIP_BROWSER_TESTS=1 says
 * to skip them.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { type BrowserContext, chromium, type Page } from "playwright-core"
import { type ChromiumBinary, ensureChromium } from "../support/chromiumSetup.ts"

export const SKIP_ENV = "AGENT_BRIDGE_SKIP_BROWSER_TESTS"

let binary: ChromiumBinary | undefined

/** True when the browser tests should be skipped (asked for explicitly); otherwise finds or installs Chromium, and throws when there is none. */
export const skipBrowserTests = async (): Promise<boolean> => {
  if (process.env[SKIP_ENV] === "1") return true
  binary ??= await ensureChromium()
  return false
}

/** The machine's network is closed: Chromium must not try its background connections. */
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

export interface Browser {
  readonly context: BrowserContext
  readonly page: Page
  readonly close: () => Promise<void>
}

/** A headless Chromium with a fresh profile (user data dir) of its own. */
export const launchChromium = async (): Promise<Browser> => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "inbox-chromium-"))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: (binary ??= await ensureChromium()).executablePath,
    env: { ...process.env, ...binary.env } as Record<string, string>,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 }
  })
  // Bounds for a hung page, not speed goals: with both cores held by busy loops and four forks, a
  // navigation's "load" once came after playwright's default 30 s (the console's filter form; the
  // run before and after passed in seconds).
  context.setDefaultNavigationTimeout(90_000)
  context.setDefaultTimeout(60_000)
  const page = context.pages()[0] ?? (await context.newPage())
  return {
    context,
    page,
    close: async () => {
      await context.close()
      fs.rmSync(profile, { recursive: true, force: true })
    }
  }
}

export const ARTIFACTS = path.resolve("test-artifacts", "inbox")

/** A full-page screenshot saved as a test artifact (`test-artifacts/inbox/<name>.png`). */
export const screenshot = async (page: Page, name: string) => {
  fs.mkdirSync(ARTIFACTS, { recursive: true })
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true })
}
