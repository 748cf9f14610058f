/**
 * A vitest reporter beside the default one: when vitest's own machinery fails a run (an RPC
 * timeout between a fork and the main process, "[vitest-worker]: Timeout calling ..."), it prints
 * one paragraph at the end that says so, names the test file (and test) that was running in that
 * fork, and says whether every test passed, so such a run is never red with no file to look at.
 *
 * The loop guard (loopGuard.ts) is what keeps these from happening: an RPC times out only when a
 * fork's loop does not turn for 60 s. If one is still seen, the file named here is where to look
 * (or the machine was loaded past what the guard's bound allows for; see loopGuard.ts).
 */
import type { Reporter, SerializedError, TestModule, TestRunEndReason } from "vitest/node"

/** Messages of vitest's own RPC and pool failures, as vitest 3 words them. */
export const isVitestOwnError = (error: SerializedError): boolean =>
  /^\[vitest-(worker|pool|api)\]: /.test(String(error.message ?? ""))

const where = (error: SerializedError): string => {
  const file = error["VITEST_TEST_PATH"]
  const test = error["VITEST_TEST_NAME"]
  if (typeof file !== "string") return "no test file was named by vitest"
  return `while ${file} was running in its fork${typeof test === "string" ? ` (last test: "${test}")` : ""}`
}

/** The paragraph to print, or undefined when no unhandled error is vitest's own. */
export const describeOwnErrors = (
  tests: { readonly passed: number; readonly failed: number },
  errors: ReadonlyArray<SerializedError>
): string | undefined => {
  const own = errors.filter(isVitestOwnError)
  if (own.length === 0) return undefined
  const { failed, passed } = tests
  const lines = own.map((error) => `  - ${error.message} ${where(error)}`)
  return [
    `vitest's own error${own.length === 1 ? "" : "s"} (not a test's), ${own.length} of ${errors.length} unhandled:`,
    ...lines,
    failed === 0
      ? `Every test that reported passed (${passed}); the run fails on vitest's error alone. A fork's loop held for 60 s causes it: the loop guard (test/support/loopGuard.ts) bounds what a test may hold, so look at the file named above, or at the machine's load.`
      : `${failed} test(s) failed as well (${passed} passed).`
  ].join("\n")
}

export default class VitestOwnErrors implements Reporter {
  onTestRunEnd(
    modules: ReadonlyArray<TestModule>,
    errors: ReadonlyArray<SerializedError>,
    _reason: TestRunEndReason
  ) {
    let passed = 0
    let failed = 0
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === "passed") passed++
        else if (state === "failed") failed++
      }
    }
    const text = describeOwnErrors({ passed, failed }, errors)
    if (text !== undefined) process.stderr.write(`\n${text}\n`)
  }
}
