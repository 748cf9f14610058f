/**
 * Between two tests the fork's event loop turns (test/support/loopGuard.ts). vitest alone chains
 * synchronous tests through microtasks: without the hook the callback queued in the first test has
 * not run when the second starts, and a file of such tests keeps vitest's own RPC answers unread.
 */
import { describe, expect, it } from "vitest"

describe("between two synchronous tests", () => {
  let turned = false

  it("queues a callback that needs a turn of the loop, and a poll, to run", () => {
    turned = false
    // The inner callback runs in the check phase of the turn after the outer one's: a poll phase
    // (where IPC messages are read) lies between them.
    setImmediate(() => setImmediate(() => (turned = true)))
  })

  it("finds it run", () => {
    expect(turned).toBe(true)
  })
})
