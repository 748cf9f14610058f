/**
 * The suite's console policy (test/support/quietConsole.ts): a passing test's console lines stay in
 * the fork (they never cross vitest's RPC channel); a failing test's lines are printed after it,
 * newest kept when a test logs more than the bound.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeConsoleBuffer, type Stream } from "../support/consoleBuffer.ts"

const collecting = () => {
  const out: Array<readonly [Stream, string]> = []
  const buffer = makeConsoleBuffer(40)
  buffer.setSink((stream, text) => out.push([stream, text]))
  return { buffer, out }
}

describe("console buffer", () => {
  it("holds lines until flushed, then prints them after a heading, on their own streams", () => {
    const { buffer, out } = collecting()
    buffer.push("stdout", "one")
    buffer.push("stderr", "two")
    expect(out).toEqual([])
    buffer.flush("failed test")
    expect(out).toEqual([
      ["stdout", "── failed test (2 lines) ──"],
      ["stdout", "one"],
      ["stderr", "two"]
    ])
    expect(buffer.heldChars()).toBe(0)
  })

  it("begin drops what a passing test logged", () => {
    const { buffer, out } = collecting()
    buffer.push("stdout", "passing noise")
    buffer.begin()
    buffer.flush("nothing")
    expect(out).toEqual([])
  })

  it("keeps the newest lines within its bound and says how many it dropped", () => {
    const { buffer, out } = collecting()
    for (let i = 0; i < 10; i++) buffer.push("stdout", `line ${i} ......`)
    expect(buffer.heldChars()).toBeLessThanOrEqual(40)
    buffer.flush("loud test")
    expect(out[0]![1]).toMatch(/earlier dropped/)
    expect(out.at(-1)).toEqual(["stdout", "line 9 ......"])
  })

  it("passes lines through while flushing and before a sink is set", () => {
    const bare = makeConsoleBuffer()
    expect(bare.passThrough).toBe(true)
    const { buffer } = collecting()
    expect(buffer.passThrough).toBe(false)
  })
})

describe("the suite's console", () => {
  it("keeps a passing test's console.log and Effect log lines in the fork", async () => {
    const state = (globalThis as Record<symbol, { buffer: { heldChars: () => number } } | undefined>)[
      Symbol.for("agent-bridge/test/quietConsole")
    ]
    if (process.env["AGENT_BRIDGE_TEST_LOGS"] === "all") return expect(state?.buffer.heldChars() ?? 0).toBe(0)
    expect(state).toBeDefined()
    const before = state!.buffer.heldChars()
    console.log("held back")
    await Effect.runPromise(Effect.logInfo("held back too"))
    expect(state!.buffer.heldChars()).toBeGreaterThan(before + "held back".length)
  })
})
