/**
 * A multi-line secret longer than the redactor's usual context: a 14 KB PEM private key (220
 * lines). A window or page that starts inside it, with its BEGIN line more than 8192 characters
 * before, is still masked, through the service's output windows and events pages and through the
 * pure segment masking; ordinary long text before a window still gets the usual context only.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeRedaction, MASK } from "../../src/domain/redact/redact.ts"
import { BLOCK_REACH, CONTEXT_CHARS, contextBefore } from "../../src/domain/redact/reach.ts"
import { TestDb } from "../support/testDb.ts"
import { as, eventually, harness } from "../runs/support/harness.ts"
import { chars, leakFinder, mulberry32 } from "./corpus.ts"

const alice = as("alice")
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
const raw = chars(mulberry32(14), B64, 220 * 64)
const body = raw.match(/.{64}/g)!.join("\n")
const pem = `-----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END RSA PRIVATE KEY-----`
const streamed = `Here is the deploy key:\n${pem}\nKeep it safe.`
const leak = leakFinder(raw)

describe("a secret longer than the context", () => {
  it("is masked in a part whose BEGIN line lies far before it (segments)", () => {
    const r = makeRedaction([])
    for (const at of [9000, 12000, 14000, streamed.indexOf("-----END") - 10]) {
      const [out] = r.segments([streamed.slice(at, at + 500)], { before: streamed.slice(0, at), after: streamed.slice(at + 500) })
      expect(leak(out!), `part at ${at}`).toBeUndefined()
      expect(out).toContain(MASK)
    }
  })

  it("reaches back only over block characters", () => {
    const prose = "It's a long story; isn't it? ".repeat(1000)
    expect(contextBefore(prose)).toBe(prose.slice(-CONTEXT_CHARS))
    expect(contextBefore(streamed.slice(0, 12000))).toBe(streamed.slice(0, 12000))
    const huge = "A".repeat(BLOCK_REACH * 2)
    expect(contextBefore(huge).length).toBe(BLOCK_REACH)
  })

  it.live("is masked in an output window at offset 12000 and in an events page that starts inside it", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "show the key" }))
      const hid = [...h.hermes.runs.keys()][0]!
      const pieces = streamed.match(/[\s\S]{1,1000}/g)!
      for (const [i, piece] of pieces.entries()) {
        yield* h.hermes.deltas(hid, [piece])
        yield* eventually(alice(h.runs.status(view.run_id, 0)), (v) => v.last_seq === 2 + i, "a separate flush")
      }
      for (const live of [true, false]) {
        if (!live) {
          yield* h.hermes.complete(hid)
          yield* alice(h.runs.wait(view.run_id, 30))
        }
        for (const offset of [0, 9000, 12000, 14000]) {
          const w = yield* alice(h.runs.status(view.run_id, offset))
          expect(leak(JSON.stringify(w)), `window at ${offset}, live ${live}`).toBeUndefined()
        }
        for (const since of [9, 10, 12, 14]) {
          const page = yield* alice(h.runs.events(view.run_id, since, 2))
          expect(leak(JSON.stringify(page)), `page after ${since}, live ${live}`).toBeUndefined()
        }
      }
    }).pipe(Effect.scoped, Effect.provide(TestDb)), 60_000)
})
