/**
 * The order in which the browser tests get their Chromium (test/support/chromiumSetup.ts): the
 * machine's own first, apt only as root, the npm build last; a forced way is the only one tried and
 * an unknown one is refused. That the chosen browser really drives the inbox is
 * browser.e2e.test.ts's job.
 */
import { describe, expect, it } from "vitest"
import { chromiumVersion, plan, SOURCE_ENV } from "../support/chromiumSetup.ts"

describe("where the browser tests get Chromium", () => {
  it("tries the machine's, then apt as root, then the npm build", () => {
    expect(plan({ forced: undefined, isRoot: true, hasApt: true })).toEqual(["system", "apt", "npm"])
    expect(plan({ forced: "", isRoot: true, hasApt: true })).toEqual(["system", "apt", "npm"])
  })

  it("skips apt when not root, or without apt-get", () => {
    expect(plan({ forced: undefined, isRoot: false, hasApt: true })).toEqual(["system", "npm"])
    expect(plan({ forced: undefined, isRoot: true, hasApt: false })).toEqual(["system", "npm"])
  })

  it("tries only the forced way", () => {
    expect(plan({ forced: "npm", isRoot: true, hasApt: true })).toEqual(["npm"])
    expect(plan({ forced: "apt", isRoot: false, hasApt: false })).toEqual(["apt"])
  })

  it("refuses an unknown forced way, naming the variable", () => {
    expect(() => plan({ forced: "playwright", isRoot: true, hasApt: true })).toThrow(SOURCE_ENV)
  })

  it("does not take a file that is not a Chromium", async () => {
    expect(await chromiumVersion("/definitely/not/here/chromium")).toBeUndefined()
    expect(await chromiumVersion("/bin/true")).toBeUndefined()
    expect(await chromiumVersion("/bin/false")).toBeUndefined()
  })
})

describe("browser test files", () => {
  // skipBrowserTests() answers a Promise: passed to describe.skipIf without `await` it is truthy,
  // and the whole file is skipped in silence (the console's browser tests once were).
  it("await skipBrowserTests() wherever they call it", async () => {
    const fs = await import("node:fs")
    const path = await import("node:path")
    const files = (fs.readdirSync("test", { recursive: true }) as Array<string>).filter((f) => f.endsWith(".test.ts")).map((f) => path.join("test", f))
    const uses = files.flatMap((f) => fs.readFileSync(f, "utf8").split("\n").filter((l) => /skipIf\(.*skipBrowserTests\(/.test(l)).map((line) => ({ f, line })))
    expect(uses.length).toBeGreaterThanOrEqual(2)
    for (const { f, line } of uses) expect(line, f).toMatch(/skipIf\(await skipBrowserTests\(\)\)/)
  })
})
