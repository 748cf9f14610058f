/**
 * Isolation property: for random interleavings of two clients' calls, each client's view of the
 * other's run ids is identical to its view of random ids (same error, same message modulo the id,
 * no effect on the run), its list never shows the other's runs, and the admin sees both.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, FastCheck as fc } from "effect"
import { randomBytes } from "node:crypto"
import type { BridgeError } from "../../src/domain/errors.ts"
import { Caller } from "../../src/request/Caller.ts"
import type { Progress } from "../../src/request/Progress.ts"
import { TestDb } from "../support/testDb.ts"
import { as, eventually, harness } from "./support/harness.ts"

type Who = "alice" | "bob"
type Op = "status" | "events" | "wait" | "steer" | "stop" | "answer"
type Command =
  | { readonly kind: "start"; readonly who: Who }
  | { readonly kind: "call"; readonly who: Who; readonly op: Op; readonly target: "own" | "other"; readonly pick: number }
  | { readonly kind: "hermes"; readonly pick: number; readonly event: "delta" | "clarify" | "complete" }
  | { readonly kind: "list"; readonly who: Who }

const who = fc.constantFrom<Who>("alice", "bob")
const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant("start" as const), who }),
  fc.record({
    kind: fc.constant("call" as const),
    who,
    op: fc.constantFrom<Op>("status", "events", "wait", "steer", "stop", "answer"),
    target: fc.constantFrom("own" as const, "other" as const, "other" as const),
    pick: fc.nat(20)
  }),
  fc.record({ kind: fc.constant("hermes" as const), pick: fc.nat(20), event: fc.constantFrom("delta" as const, "clarify" as const, "complete" as const) }),
  fc.record({ kind: fc.constant("list" as const), who })
)

const randomRunId = () => `run_${randomBytes(16).toString("hex")}`

/** The outcome with the run id taken out, so two calls on different ids compare equal. */
const normalise = (exit: Exit.Exit<unknown, BridgeError>, id: string) =>
  Exit.isSuccess(exit) ? { ok: true } : { ok: false, error: JSON.stringify(exit.cause).split(id).join("<id>") }

describe("isolation between clients", () => {
  it.live("another client's run ids look exactly like random ids; the admin sees every run", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(fc.array(command, { minLength: 5, maxLength: 30 }), (commands) =>
          Effect.runPromise(
            Effect.gen(function* () {
              const h = yield* harness({ maxRuns: 100, maxConcurrent: 1000 })
              const owned: Record<Who, Array<string>> = { alice: [], bob: [] }
              const hermesOf = new Map<string, string>()

              const call = (op: Op, id: string): Effect.Effect<unknown, BridgeError, Caller | Progress> => {
                switch (op) {
                  case "status": return h.runs.status(id, 0)
                  case "events": return h.runs.events(id, 0, 100)
                  case "wait": return h.runs.wait(id, 0)
                  case "steer": return h.runs.steer(id, "guidance")
                  case "stop": return h.runs.stop(id)
                  case "answer": return h.runs.answer(id, "c1", "yes")
                }
              }

              for (const c of commands) {
                if (c.kind === "start") {
                  const before = new Set(h.hermes.runs.keys())
                  const v = yield* as(c.who)(h.runs.start({ agent: "hermes", input: `task of ${c.who}` }))
                  owned[c.who].push(v.run_id)
                  hermesOf.set(v.run_id, [...h.hermes.runs.keys()].find((k) => !before.has(k))!)
                } else if (c.kind === "hermes") {
                  const all = [...owned.alice, ...owned.bob]
                  const target = all[c.pick % Math.max(all.length, 1)]
                  const hid = target === undefined ? undefined : hermesOf.get(target)
                  const fake = hid === undefined ? undefined : h.hermes.runs.get(hid)
                  if (fake === undefined || ["completed", "failed", "cancelled", "interrupted"].includes(fake.status)) continue
                  if (c.event === "clarify" && fake.status !== "running") continue
                  const seen = (yield* as(Caller.admin)(h.runs.status(target!, 0))).last_seq
                  if (c.event === "delta") yield* h.hermes.deltas(fake.id, ["some text "])
                  if (c.event === "clarify") yield* h.hermes.emit(fake.id, "clarify.request", { clarify_id: "c1", question: "?", choices: null, multi_select: false })
                  if (c.event === "complete") yield* h.hermes.complete(fake.id, "done")
                  // Let the follower record it, so later calls see every status.
                  yield* eventually(as(Caller.admin)(h.runs.status(target!, 0)), (v) => v.last_seq > seen, "the follower")
                } else if (c.kind === "list") {
                  const listed = (yield* as(c.who)(h.runs.list({ limit: 200 }))).runs.map((r) => r.run_id)
                  expect(new Set(listed)).toEqual(new Set(owned[c.who]))
                } else {
                  const other: Who = c.who === "alice" ? "bob" : "alice"
                  const pool = c.target === "own" ? owned[c.who] : owned[other]
                  const id = pool[c.pick % Math.max(pool.length, 1)]
                  if (id === undefined) continue
                  if (c.target === "own") {
                    yield* Effect.exit(as(c.who)(call(c.op, id)))
                    continue
                  }
                  const stopsBefore = h.hermes.calls.stop.length
                  const steersBefore = h.hermes.calls.steer.length
                  const clarifiesBefore = h.hermes.calls.clarify.length
                  const theirs = yield* as(other)(h.runs.status(id, 0))
                  const random = randomRunId()
                  const onOther = yield* Effect.exit(as(c.who)(call(c.op, id)))
                  const onRandom = yield* Effect.exit(as(c.who)(call(c.op, random)))
                  expect(normalise(onOther, id)).toEqual(normalise(onRandom, random))
                  expect(Exit.isFailure(onOther)).toBe(true)
                  // Nothing reached Hermes and the owner's run is unchanged.
                  expect(h.hermes.calls.stop.length).toBe(stopsBefore)
                  expect(h.hermes.calls.steer.length).toBe(steersBefore)
                  expect(h.hermes.calls.clarify.length).toBe(clarifiesBefore)
                  const after = yield* as(other)(h.runs.status(id, 0))
                  if (theirs.status === "running") expect(after.status).not.toBe("stopping")
                }
              }

              const adminList = (yield* as(Caller.admin)(h.runs.list({ limit: 200 }))).runs.map((r) => r.run_id)
              expect(new Set(adminList)).toEqual(new Set([...owned.alice, ...owned.bob]))
              for (const id of [...owned.alice, ...owned.bob]) {
                expect((yield* as(Caller.admin)(h.runs.status(id, 0))).run_id).toBe(id)
              }
            }).pipe(Effect.scoped, Effect.provide(TestDb))
          )
        ),
        { numRuns: 20 }
      )
    ))
})
