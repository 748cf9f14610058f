/**
 * A finished run's view is made once per window and reused (`views.ts`, the Redactor's memo): the
 * same answer on every read, a different one per window, the owner check still made on each read,
 * and never a view made before a secret was registered once it is.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { MASK } from "../../src/domain/redact/redact.ts"
import { TestDb } from "../support/testDb.ts"
import { as, eventually, failure, harness } from "./support/harness.ts"

const alice = as("alice")
const bob = as("bob")
const SECRET = "zz-registered-after-the-run-0042"

describe("finished run views", () => {
  it.live("are reused per window, checked per caller, and remade once a secret is registered", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "long answer" }))
      const hid = [...h.hermes.runs.keys()][0]!
      const output = `${"x".repeat(20_000)} the password is ${SECRET} ${"y".repeat(100)}`
      yield* h.hermes.complete(hid, output)
      yield* alice(h.runs.wait(view.run_id, 30))

      const first = yield* alice(h.runs.status(view.run_id, 0))
      const again = yield* alice(h.runs.status(view.run_id, 0))
      expect(first.status).toBe("completed")
      expect(again).toBe(first)
      const second = yield* alice(h.runs.status(view.run_id, first.next_offset!))
      expect(second).not.toBe(first)
      expect(second.output).toContain(SECRET)
      expect(second.output_offset).toBe(first.next_offset)

      // Reuse never skips the owner check.
      expect((yield* failure(bob(h.runs.status(view.run_id, 0))))._tag).toBe("RunNotFound")

      yield* h.redactor.registerSecret(SECRET)
      const masked = yield* alice(h.runs.status(view.run_id, first.next_offset!))
      expect(masked.output).not.toContain(SECRET)
      expect(masked.output).toContain(MASK)
      // The first window held no secret, and is made again under the new mask list all the same.
      const firstAgain = yield* alice(h.runs.status(view.run_id, 0))
      expect(firstAgain).not.toBe(first)
      expect(firstAgain).toEqual(first)
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a run still running is read afresh on every call", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "streaming" }))
      const hid = [...h.hermes.runs.keys()][0]!
      yield* h.hermes.deltas(hid, ["one "])
      const a = yield* eventually(alice(h.runs.status(view.run_id, 0)), (v) => v.output === "one ", "the delta")
      const b = yield* alice(h.runs.status(view.run_id, 0))
      expect(b).not.toBe(a)
      expect(b).toEqual(a)
    }).pipe(Effect.scoped, Effect.provide(TestDb)))
})
