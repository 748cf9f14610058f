/**
 * The loop guard (test/support/loopGuard.ts) fails a test that holds its fork's event loop past the
 * bound, whether on the CPU or asleep, in a synchronous or an async test, or at a file's top level,
 * and passes tests that wait as long or work as long in chunks. It runs vitest itself on the
 * fixtures (test/structure/fixtures/) with a bound of 300 ms and holds of 900 ms, asynchronously, so
 * that this test does not hold its own fork.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { runProcess } from "../support/runProcess.ts"
import { tempDir } from "../support/tempDirs.ts"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")

interface JsonReport {
  readonly testResults: ReadonlyArray<{
    readonly name: string
    readonly assertionResults: ReadonlyArray<{
      readonly title: string
      readonly status: string
      readonly failureMessages: ReadonlyArray<string>
    }>
  }>
}

describe("the loop guard", () => {
  it("fails the tests that hold the loop and passes the ones that yield", async () => {
    const out = path.join(tempDir(), "report.json")
    const run = await runProcess(
      process.execPath,
      [
        path.join(root, "node_modules", "vitest", "vitest.mjs"),
        "run",
        "--config",
        path.join(root, "test", "structure", "fixtures", "vitest.loopGuard.config.ts"),
        "--reporter=json",
        `--outputFile=${out}`
      ],
      { cwd: root, env: { ...process.env, AGENT_BRIDGE_LOOP_GUARD_MS: "300", HOLD_MS: "900" }, timeoutMs: 280_000 }
    )
    expect(run.status, run.stderr + run.stdout).toBe(1)
    const report = JSON.parse(fs.readFileSync(out, "utf8")) as JsonReport
    const results = new Map(
      report.testResults.flatMap((file) => file.assertionResults.map((test) => [test.title, test] as const))
    )
    const outcome = (title: string) => {
      const test = results.get(title)
      expect(test, `no result for "${title}"`).toBeDefined()
      return test!
    }
    for (const title of [
      "holds the loop on the CPU",
      "holds the loop asleep",
      "holds the loop in an async test after its first await"
    ]) {
      const test = outcome(title)
      expect(test.status, title).toBe("failed")
      expect(test.failureMessages.join("\n")).toContain(`"${title}" held its fork's event loop for`)
    }
    // The hold it reports is the one the test made (900 ms of CPU time, or asleep), whatever the load.
    for (const title of ["holds the loop on the CPU", "holds the loop asleep"]) {
      const held = /held its fork's event loop for ([\d.]+) s/.exec(outcome(title).failureMessages.join("\n"))
      expect(Number(held?.[1]), title).toBeGreaterThanOrEqual(0.85)
    }
    for (const title of ["waits without holding the loop", "works as long in chunks with a turn between them"]) {
      const test = outcome(title)
      expect(test.status, `${title}: ${test.failureMessages.join("\n")}`).toBe("passed")
    }
    const first = outcome("is the first test after the hold")
    expect(first.status).toBe("failed")
    expect(first.failureMessages.join("\n")).toContain("The file's top level, a beforeAll or the previous test's hooks held")
  }, 300_000) // a whole vitest run of its own: on a machine at load 20 its start alone took past 110 s
})
