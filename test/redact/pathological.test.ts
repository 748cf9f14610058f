/**
 * Inputs built to make a careless scanner quadratic: thousands of triggers on one line with no end
 * in sight. Each must be masked in linear time (a quadratic scan of these would run for hours and
 * time the test out); the results must be stable under masking again.
 */
import { describe, expect, it } from "vitest"
import { makeRedaction, MASK } from "../../src/domain/redact/redact.ts"
import { loopTurn } from "../support/loopTurn.ts"

const r = makeRedaction(["registered-secret-0042"])
const N = 300_000
const fill = (unit: string): string => unit.repeat(Math.ceil(N / unit.length))

describe("pathological inputs", () => {
  it.each([
    ["repeated prefixes", fill("sk-")],
    ["headers with no line end", fill("Authorization: Basic ")],
    ["unclosed quoted values", fill('"token": "x')],
    ["unclosed templates", fill("token=${{")],
    ["escaped quotes with no close", fill('{\\"api_key\\":\\"')],
    ["values that never stop", fill("token=")],
    ["BEGIN lines with no END", fill("-----BEGIN PRIVATE KEY-----\n")],
    ["JWT headers", fill("eyJ")],
    ["URLs with no host", fill("https://a:b")],
    ["trigger words", fill("token")],
    ["glued tokens", fill("ASIAAAAAAAAAAAAAAAAAhal0bk_" + "b".repeat(30))],
    ["a registered secret's prefix", fill("registered-")],
    ["percent escapes with no end", fill("%41")],
    ["percent-encoded assignments", fill("token%3D")],
    ["base64 forms of a token prefix", fill("Z2hwX")],
    ["base64 of assignments", fill(Buffer.from("token=").toString("base64"))],
    ["cookie headers", fill("Cookie: a=")],
    ["mysql flags", fill("mysql -u ")],
    ["Telegram-like ids", fill("123456789:AA")]
  ])("%s", async (_, text) => {
    // Each call is one linear scan of 300,000 characters; the loop turns between them (loopGuard.ts).
    const out = r.text(text, true)
    await loopTurn()
    expect(r.text(out, true)).toBe(out)
    await loopTurn()
    expect(r.segments([text.slice(0, N / 2), text.slice(N / 2)], { liveEdge: true })).toHaveLength(2)
  })

  it("masks what they hold", async () => {
    expect(r.text("sk-" + "a".repeat(N), false)).toBe(MASK)
    await loopTurn()
    expect(r.text(fill("sk-"), false)).toBe(MASK)
    await loopTurn()
    expect(r.text(fill('"token": "x'), false)).not.toContain('"x')
    await loopTurn()
    expect(r.text(fill("ASIAAAAAAAAAAAAAAAAAhal0bk_" + "b".repeat(30)), false)).not.toMatch(/hal0bk_b/)
  })
})
