/**
 * Runs before every test file (vitest setupFiles): console output of a test that passes is dropped;
 * a test that fails gets its own output printed after it, the way vitest shows any test's logs.
 *
 * Why in the worker and not vitest's `silent: "passed-only"` or `onConsoleLog`: both filter in the
 * main process, after each line has crossed the fork's RPC channel. The daemons and services under
 * test log through Effect's logger, which writes with `console.log` / `console.error`: about 200 KB
 * in 660 messages a run, not the cause of "Timeout calling onTaskUpdate" (loopGuard.ts is), but
 * noise that buried the one failure a run had. Kept here, in the fork's memory, a passing test
 * sends nothing.
 *
 * `AGENT_BRIDGE_TEST_LOGS=all` lets every line through (vitest prints it as usual).
 */
import * as util from "node:util"
import { afterAll, beforeAll, beforeEach } from "vitest"
import { type ConsoleBuffer, makeConsoleBuffer, quietMethods } from "./consoleBuffer.ts"

const STATE = Symbol.for("agent-bridge/test/quietConsole")

interface QuietState {
  readonly buffer: ConsoleBuffer
  /** Consoles already wrapped: Effect keeps the console it first saw, vitest makes one per file. */
  readonly wrapped: WeakSet<object>
}

const shared = globalThis as unknown as Record<typeof STATE, QuietState | undefined>

const state = (shared[STATE] ??= { buffer: makeConsoleBuffer(), wrapped: new WeakSet() })

/** Wraps the methods of `target` so their output lands in the shared buffer. */
const wrap = (target: Console): void => {
  if (state.wrapped.has(target)) return
  state.wrapped.add(target)
  const log = target.log.bind(target)
  const error = target.error.bind(target)
  for (const [method, stream] of quietMethods) {
    const original = (target[method] as (...args: Array<unknown>) => void).bind(target)
    const quiet = (...args: Array<unknown>) => {
      if (state.buffer.passThrough) return original(...args)
      state.buffer.push(stream, util.format(...args))
    }
    Object.defineProperty(target, method, { value: quiet, writable: true, configurable: true, enumerable: true })
  }
  // The newest console's own methods: a failing test's lines reach vitest, attributed to that test.
  state.buffer.setSink((stream, text) => (stream === "stdout" ? log(text) : error(text)))
}

if (process.env["AGENT_BRIDGE_TEST_LOGS"] !== "all") {
  wrap(globalThis.console)
}

let fileFailed = false

beforeAll(() => {
  fileFailed = false
  state.buffer.begin()
})

beforeEach((context) => {
  // Lines from before this test (a beforeAll, the previous test's tail) belong to the file.
  state.buffer.begin()
  context.onTestFailed(() => {
    fileFailed = true
    state.buffer.flush(`console output of the failed test "${context.task.name}"`)
  })
})

afterAll((suite) => {
  // A hook that failed has no test to carry its lines: print the file's remainder then.
  const hookFailed = (suite.result?.errors?.length ?? 0) > 0
  if (fileFailed || hookFailed) state.buffer.flush("console output outside any test of this file")
  else state.buffer.begin()
})
