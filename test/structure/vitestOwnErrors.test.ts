/**
 * The reporter that names the file behind vitest's own errors (test/support/vitestOwnErrors.ts):
 * an RPC timeout in a run whose tests all passed is said to be vitest's, with the file and test
 * that were running; a test's own unhandled error is left to vitest's default report.
 */
import { describe, expect, it } from "vitest"
import { describeOwnErrors, isVitestOwnError } from "../support/vitestOwnErrors.ts"

const rpcTimeout = {
  name: "Error",
  message: '[vitest-worker]: Timeout calling "onTaskUpdate"',
  VITEST_TEST_PATH: "/repo/test/redact/splits.test.ts",
  VITEST_TEST_NAME: "splits > every offset"
}

describe("vitest's own errors", () => {
  it("are told from a test's own unhandled errors", () => {
    expect(isVitestOwnError(rpcTimeout)).toBe(true)
    expect(isVitestOwnError({ ...rpcTimeout, message: '[vitest-pool]: Timeout calling "x"' })).toBe(true)
    expect(isVitestOwnError({ name: "Error", message: "ECONNRESET" })).toBe(false)
    expect(isVitestOwnError({ name: "Error", message: "see [vitest-worker]: inside" })).toBe(false)
  })

  it("name the file and test that were running, and say every test passed", () => {
    const text = describeOwnErrors({ passed: 2636, failed: 0 }, [rpcTimeout, { name: "Error", message: "other" }])
    expect(text).toContain('[vitest-worker]: Timeout calling "onTaskUpdate" while /repo/test/redact/splits.test.ts was running in its fork (last test: "splits > every offset")')
    expect(text).toContain("1 of 2 unhandled")
    expect(text).toContain("Every test that reported passed (2636)")
  })

  it("say when tests failed too, and when vitest named no file", () => {
    const text = describeOwnErrors({ passed: 3, failed: 2 }, [{ name: "Error", message: rpcTimeout.message }])
    expect(text).toContain("no test file was named by vitest")
    expect(text).toContain("2 test(s) failed as well (3 passed)")
  })

  it("print nothing when no error is vitest's own", () => {
    expect(describeOwnErrors({ passed: 1, failed: 0 }, [{ name: "Error", message: "boom" }])).toBeUndefined()
    expect(describeOwnErrors({ passed: 1, failed: 0 }, [])).toBeUndefined()
  })
})
