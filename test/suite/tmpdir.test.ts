/**
 * The suite's own temp folder (test/support/tmpdirSetup.ts): workers see it as os.tmpdir(), and its
 * teardown fails the run when an `agent-bridge-*` entry is left, removing the folder either way.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import setup, { leftovers } from "../support/tmpdirSetup.ts"

describe("the suite's temp folder", () => {
  it("is a fresh folder of this run, not the machine's temp folder", () => {
    expect(path.basename(os.tmpdir())).toMatch(/^vitest-run-/)
    expect(process.env["TMPDIR"]).toBe(os.tmpdir())
  })

  it("teardown passes and removes the folder when nothing is left", () => {
    const before = process.env["TMPDIR"]
    const teardown = setup()
    const dir = os.tmpdir()
    expect(dir).not.toBe(before)
    fs.mkdirSync(path.join(dir, "inbox-chromium-x"))
    teardown()
    expect(process.env["TMPDIR"]).toBe(before)
    expect(fs.existsSync(dir)).toBe(false)
  })

  it("teardown fails, naming each agent-bridge-* entry left, and still removes the folder", () => {
    const before = process.env["TMPDIR"]
    const teardown = setup()
    const dir = os.tmpdir()
    fs.mkdirSync(path.join(dir, "agent-bridge-test-b"))
    fs.writeFileSync(path.join(dir, "agent-bridge-test-a"), "")
    fs.mkdirSync(path.join(dir, "something-else"))
    expect(leftovers(dir)).toEqual(["agent-bridge-test-a", "agent-bridge-test-b"])
    expect(() => teardown()).toThrow(/left 2 agent-bridge-\* entries .*agent-bridge-test-a, agent-bridge-test-b/)
    expect(process.env["TMPDIR"]).toBe(before)
    expect(fs.existsSync(dir)).toBe(false)
  })
})
