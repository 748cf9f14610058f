/**
 * Debian's Chromium driven by playwright-core (which never downloads a browser). CI installs the
 * `chromium` package; on a machine without it the browser tests fail loudly, unless
 * AGENT_BRIDGE_SKIP_BROWSER_TESTS=1 says to skip them.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { type BrowserContext, chromium, type Page } from "playwright-core"

export const CHROMIUM = "/usr/bin/chromium"
export const SKIP_ENV = "AGENT_BRIDGE_SKIP_BROWSER_TESTS"

/** True when the browser tests should be skipped (asked for explicitly); throws when Chromium is missing otherwise. */
export const skipBrowserTests = (): boolean => {
  if (process.env[SKIP_ENV] === "1") return true
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) for the inbox browser tests, or set ${SKIP_ENV}=1 to skip them`
    )
  }
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
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 }
  })
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
