/**
 * Not-found is not a timing oracle: every run call on another client's run id takes the same path
 * through the ledger as on an id nobody minted. The ledger is asked by id and owner in one
 * statement, so it answers "none" to both, and the service never holds the foreign row to check
 * afterwards (reading the row and then comparing its owner made a foreign id answer 0.12–0.30 ms
 * later than an unknown one). The calls the service makes of the ledger, with their answers, are
 * recorded here and must be identical for the two ids.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, FiberRef, Layer, Option } from "effect"
import type { BridgeError } from "../../src/domain/errors.ts"
import type { Caller } from "../../src/request/Caller.ts"
import type { Progress } from "../../src/request/Progress.ts"
import { randomBytes } from "node:crypto"
import { Ledger, type LedgerShape } from "../../src/services/runs/Ledger.ts"
import { makeLedgerSql } from "../../src/services/runs/LedgerSql.ts"
import { TestDb } from "../support/testDb.ts"
import { as, failure, harness } from "./support/harness.ts"

/** Set on the probing calls: the followers' own reads in the background are not recorded. */
const probing = FiberRef.unsafeMake(false)

/** The real ledger, recording each call of a probe (with `hide` taken out of its arguments) and whether it found anything. */
const spyLedger = (log: Array<string>, hide: { ids: ReadonlyArray<string> }) =>
  Layer.effect(
    Ledger,
    Effect.map(makeLedgerSql, (real): LedgerShape => {
      const scrub = (v: unknown) => hide.ids.reduce((s, id) => s.split(id).join("<id>"), JSON.stringify(v) ?? "undefined")
      const answer = (a: unknown) => (Option.isOption(a) ? (Option.isSome(a) ? "some" : "none") : Array.isArray(a) ? `[${a.length}]` : typeof a)
      const entries = Object.entries(real).map(([name, member]) => {
        if (Effect.isEffect(member)) return [name, member] as const
        const f = member as (...a: ReadonlyArray<unknown>) => Effect.Effect<unknown, unknown>
        return [name, (...args: ReadonlyArray<unknown>) =>
          Effect.tap(f(...args), (a) =>
            Effect.flatMap(FiberRef.get(probing), (on) => Effect.sync(() => on && log.push(`${name}(${args.map(scrub).join(", ")}) = ${answer(a)}`))))] as const
      })
      return Object.fromEntries(entries) as unknown as LedgerShape
    })
  )

describe("a foreign run id takes the unknown id's path", () => {
  it.live("every run call asks the ledger the same and gets the same answer for another client's run and a made-up id", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const hide = { ids: [] as Array<string> }
      const h = yield* harness({ ledger: spyLedger(log, hide) })
      const theirs = yield* as("alice")(h.runs.start({ agent: "hermes", input: "alice's task" }))
      const unknown = `run_${randomBytes(16).toString("hex")}`
      hide.ids = [theirs.run_id, unknown]
      type Call = readonly [string, (id: string) => Effect.Effect<unknown, BridgeError, Caller | Progress>]
      const calls: ReadonlyArray<Call> = [
        ["status", (id: string) => h.runs.status(id, 0)],
        ["status at an offset", (id: string) => h.runs.status(id, 5)],
        ["events", (id: string) => h.runs.events(id, 0, 10)],
        ["wait", (id: string) => h.runs.wait(id, 0)],
        ["steer", (id: string) => h.runs.steer(id, "guidance")],
        ["answer", (id: string) => h.runs.answer(id, "c1", "yes")],
        ["stop", (id: string) => h.runs.stop(id)],
        ["page after", (id: string) => h.runs.page({ after: id, limit: 5 })]
      ]
      for (const [what, call] of calls) {
        log.length = 0
        const onForeign = yield* failure(as("bob")(Effect.locally(call(theirs.run_id), probing, true)))
        const foreignPath = [...log]
        log.length = 0
        const onUnknown = yield* failure(as("bob")(Effect.locally(call(unknown), probing, true)))
        const unknownPath = [...log]
        expect(onForeign._tag, what).toBe("RunNotFound")
        expect(onForeign.message.split(theirs.run_id).join("<id>"), what).toBe(onUnknown.message.split(unknown).join("<id>"))
        expect(foreignPath.length, what).toBeGreaterThan(0)
        expect(foreignPath, what).toEqual(unknownPath)
        // The foreign row never reached the service.
        expect(foreignPath.some((l) => l.endsWith("= some")), `${what}: ${foreignPath.join("; ")}`).toBe(false)
      }
      // The owner and the admin still find it.
      expect((yield* as("alice")(h.runs.status(theirs.run_id, 0))).run_id).toBe(theirs.run_id)
      expect((yield* as({ client: "admin", isAdmin: true, scopes: [] })(h.runs.status(theirs.run_id, 0))).run_id).toBe(theirs.run_id)
    }).pipe(Effect.scoped, Effect.provide(TestDb)))
})
