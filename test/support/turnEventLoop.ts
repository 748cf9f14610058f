/**
 * Runs before every test file (vitest setupFiles): after each test the fork's event loop turns
 * twice, so whatever arrived meanwhile (above all vitest's own answers) is read before the next test.
 *
 * Why: vitest 3's runner goes from one test to the next through promises alone (microtasks). A file
 * of synchronous tests never lets its fork's loop reach the poll phase until the whole file is done.
 * The fork reports each test to the main process over RPC with a 60 s timeout (vitest 3 hard-codes
 * it; vitest 4 dropped it); the answers wait unread, and when such a file takes over 60 s (a busy
 * machine stretches CPU-bound files: test/redact/splits.test.ts took 72 s and 167 s in whole runs
 * under load) the timers fire first when the loop turns: "Timeout calling onTaskUpdate", a red run
 * whose tests all passed. Two turns because one setImmediate made in the poll phase resolves in the
 * same turn, before the loop polls again; the second resolves only after a poll.
 */
import { setImmediate as nextTurn } from "node:timers/promises"
import { afterEach } from "vitest"

afterEach(async () => {
  await nextTurn()
  await nextTurn()
})
