/**
 * `agent_run`'s start path in the documented order (docs/REFERENCE.md), and every `bridge.*` code a run tool can raise:
 * unknown agent, unkeyed profile, invalid keys, idempotency replay and conflict, the per-client cap,
 * Hermes's 429, Hermes down, the ledger failing after Hermes accepted, and unavailable phases.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import { type BridgeError, errorCode } from "../../src/domain/errors.ts"
import type { Progress } from "../../src/request/Progress.ts"
import { Caller } from "../../src/request/Caller.ts"
import type { RunsShape, StartRunInput } from "../../src/services/runs/Runs.ts"
import { IdempotencyTaken, Ledger, LedgerError } from "../../src/services/runs/Ledger.ts"
import { makeLedgerSql } from "../../src/services/runs/LedgerSql.ts"
import { TestDb } from "../support/testDb.ts"
import { as, eventually, failure, harness } from "./support/harness.ts"

const alice = as("alice")
const bob = as("bob")
const run = (h: { readonly runs: RunsShape }, input: Partial<StartRunInput>) => h.runs.start({ agent: "hermes", input: "task", ...input })

/** The SQL ledger with some of its methods replaced: a fault of the store. */
const ledgerWith = (replace: (l: typeof Ledger.Service) => Partial<typeof Ledger.Service>) =>
  Layer.effect(Ledger, Effect.map(makeLedgerSql, (l) => ({ ...l, ...replace(l) })))

describe("agent_run start path", () => {
  it.live("refuses an unknown agent and an unkeyed profile before anything reaches Hermes", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const unknown = yield* failure(alice(h.runs.start({ agent: "pi", input: "x", session_key: "" })))
      expect(unknown._tag).toBe("UnknownAgent")
      expect(errorCode(unknown)).toBe("bridge.unknown_agent")
      expect((yield* failure(alice(h.runs.start({ agent: "hermes/ghost", input: "x" }))))._tag).toBe("UnknownAgent")
      const unkeyed = yield* failure(alice(h.runs.start({ agent: "hermes/nokey", input: "x" })))
      expect(errorCode(unkeyed)).toBe("bridge.agent_unkeyed")
      expect(h.hermes.calls.start).toEqual([])
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("refuses a NUL (U+0000) in the input, instructions, a steer or an answer as invalid input, before Hermes is called (issue 37 item 8a)", () =>
    Effect.gen(function* () {
      const h = yield* harness({ maxRuns: 10 })
      for (const fields of [{ input: "a\u0000b" }, { input: "\u0000" }, { instructions: "be\u0000brief" }]) {
        const refused = yield* failure(alice(run(h, fields)))
        expect(errorCode(refused)).toBe("bridge.invalid_input")
        expect(refused.message).toContain(Object.keys(fields)[0]!)
        expect(refused.message).toContain("U+0000")
      }
      expect(h.hermes.calls.start).toEqual([])
      const started = yield* alice(run(h, {}))
      expect(errorCode(yield* failure(alice(h.runs.steer(started.run_id, "go\u0000left"))))).toBe("bridge.invalid_input")
      expect(errorCode(yield* failure(alice(h.runs.answer(started.run_id, "req-1", "yes\u0000"))))).toBe("bridge.invalid_input")
      expect(errorCode(yield* failure(alice(h.runs.answer(started.run_id, "req-1", ["a", "b\u0000"]))))).toBe("bridge.invalid_input")
      expect(h.hermes.calls.steer).toEqual([])
      expect(h.hermes.calls.clarify).toEqual([])
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("validates session_key and idempotency_key and sends them prefixed", () =>
    Effect.gen(function* () {
      const h = yield* harness({ maxRuns: 10 })
      for (const bad of ["", "has space", "tab\there", "naïve", "x".repeat(256 - "alice:".length + 1)]) {
        expect(errorCode(yield* failure(alice(run(h, { session_key: bad }))))).toBe("bridge.invalid_session_key")
        expect(errorCode(yield* failure(alice(run(h, { idempotency_key: bad }))))).toBe("bridge.invalid_idempotency_key")
      }
      expect(h.hermes.calls.start).toEqual([])

      yield* alice(run(h, { session_key: "proj-1", idempotency_key: "k1", instructions: "be brief", reasoning_effort: "high" }))
      expect(h.hermes.calls.start[0]).toEqual({
        input: "task", instructions: "be brief", sessionKey: "alice:proj-1", idempotencyKey: "alice:k1", reasoningEffort: "high"
      })
      // 255 characters prefixed go as they are; 256 go as the SHA-256 digest form.
      const k255 = "a".repeat(255 - "alice:".length)
      const k256 = "b".repeat(256 - "alice:".length)
      yield* alice(run(h, { idempotency_key: k255, session_key: k256 }))
      yield* alice(run(h, { idempotency_key: k256 }))
      expect(h.hermes.calls.start[1]?.idempotencyKey).toBe(`alice:${k255}`)
      expect(h.hermes.calls.start[1]?.sessionKey).toBe(`alice:${k256}`)
      expect(h.hermes.calls.start[2]?.idempotencyKey).toBe(`sha256:${createHash("sha256").update(`alice:${k256}`).digest("hex")}`)
      expect(h.hermes.calls.start[2]?.idempotencyKey?.length).toBeLessThanOrEqual(255)
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("the same request with the same key returns the same run, running or finished, even at the cap", () =>
    Effect.gen(function* () {
      const h = yield* harness({ maxRuns: 1 })
      const first = yield* alice(run(h, { idempotency_key: "job-7" }))
      const again = yield* alice(run(h, { idempotency_key: "job-7" }))
      expect(again.run_id).toBe(first.run_id)
      expect(h.hermes.calls.start.length).toBe(1)
      // At the cap, a new request is refused but the replay is still answered.
      expect(errorCode(yield* failure(alice(run(h, { input: "other" }))))).toBe("bridge.too_many_runs")
      expect((yield* alice(run(h, { idempotency_key: "job-7" }))).run_id).toBe(first.run_id)

      yield* h.hermes.complete([...h.hermes.runs.keys()][0]!, "finished")
      yield* alice(h.runs.wait(first.run_id, 30))
      const finished = yield* alice(run(h, { idempotency_key: "job-7" }))
      expect(finished.run_id).toBe(first.run_id)
      expect(finished.status).toBe("completed")
      expect(h.hermes.calls.start.length).toBe(1)
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a changed request with a used key conflicts; another client's same key is its own", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const a = yield* alice(run(h, { idempotency_key: "k", session_key: "s" }))
      const changes: ReadonlyArray<Partial<StartRunInput>> = [{ input: "task2" }, { instructions: "x" }, { session_key: "t" }, { reasoning_effort: "low" }]
      for (const changed of changes) {
        const e = yield* failure(alice(run(h, { idempotency_key: "k", session_key: "s", ...changed })))
        expect(errorCode(e)).toBe("bridge.idempotency_conflict")
      }
      // Another profile is another key space: the same key there starts a new run.
      const coder = yield* alice(run(h, { idempotency_key: "k", session_key: "s", agent: "hermes/coder" }))
      expect(coder.run_id).not.toBe(a.run_id)
      const b = yield* bob(run(h, { idempotency_key: "k", session_key: "s" }))
      expect(b.run_id).not.toBe(a.run_id)
      expect(b.client).toBe("bob")
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a key held by another client's run is a conflict, never that run", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const a = yield* alice(run(h, { idempotency_key: "k" }))
      // Client names cannot contain ':', so only a row written under another owner can hold this key.
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE runs SET client = 'mallory' WHERE run_id = ${a.run_id}`
      const e = yield* failure(alice(run(h, { idempotency_key: "k" })))
      expect(errorCode(e)).toBe("bridge.idempotency_conflict")
      expect(e.message).not.toContain(a.run_id)
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("concurrent starts with one key make one run", () =>
    Effect.gen(function* () {
      const h = yield* harness({ maxRuns: 10 })
      const views = yield* Effect.all(Array.from({ length: 6 }, () => alice(run(h, { idempotency_key: "same" }))), { concurrency: "unbounded" })
      expect(new Set(views.map((v) => v.run_id)).size).toBe(1)
      const list = yield* alice(h.runs.list({ limit: 200 }))
      expect(list.runs.length).toBe(1)
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("concurrent identical starts with one key all get the one run, never too_many_runs, with one slot left", () =>
    Effect.gen(function* () {
      // Both bursts share the test's database: each has its own key and its own client.
      for (const [n, who] of [[10, "carol"], [40, "dave"]] as const) {
        const h = yield* harness({ maxRuns: 4 })
        const alice = as(who)
        for (let i = 0; i < 3; i++) yield* alice(run(h, { input: `held-${i}` }))
        const outcomes = yield* Effect.all(
          Array.from({ length: n }, () => Effect.either(alice(run(h, { idempotency_key: "retry" })))),
          { concurrency: "unbounded" }
        )
        expect(outcomes.filter((o) => o._tag === "Left").map((o) => o._tag === "Left" && errorCode(o.left))).toEqual([])
        expect(new Set(outcomes.map((o) => (o._tag === "Right" ? o.right.run_id : ""))).size).toBe(1)
        expect(h.hermes.calls.start.map((r) => r.idempotencyKey)).toEqual([undefined, undefined, undefined, `${who}:retry`])
        // The cap is full now: a new request is refused, a retry of the key still answered.
        expect(errorCode(yield* failure(alice(run(h, { idempotency_key: "other" }))))).toBe("bridge.too_many_runs")
        expect((yield* alice(run(h, { idempotency_key: "retry" }))).run_id).toBe(outcomes[0]?._tag === "Right" && outcomes[0].right.run_id)
      }
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("concurrent starts with one key but different requests: one run, the others conflict", () =>
    Effect.gen(function* () {
      const h = yield* harness({ maxRuns: 2 })
      yield* alice(run(h, { input: "held" }))
      const outcomes = yield* Effect.all(
        Array.from({ length: 8 }, (_, i) => Effect.either(alice(run(h, { idempotency_key: "mixed", input: i % 2 === 0 ? "even" : "odd" })))),
        { concurrency: "unbounded" }
      )
      const codes = outcomes.map((o) => (o._tag === "Right" ? "ok" : errorCode(o.left)))
      expect(codes.filter((c) => c === "ok").length).toBe(4)
      expect(codes.filter((c) => c !== "ok")).toEqual(Array(4).fill("bridge.idempotency_conflict"))
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a burst with one key at a full cap is refused once per request and leaves no run", () =>
    Effect.gen(function* () {
      const h = yield* harness({ maxRuns: 1 })
      yield* alice(run(h, { input: "held" }))
      const outcomes = yield* Effect.all(
        Array.from({ length: 6 }, () => Effect.either(alice(run(h, { idempotency_key: "late" })))),
        { concurrency: "unbounded" }
      )
      expect(outcomes.map((o) => (o._tag === "Left" ? errorCode(o.left) : "ok"))).toEqual(Array(6).fill("bridge.too_many_runs"))
      expect(h.hermes.calls.start.filter((r) => r.idempotencyKey === "alice:late")).toEqual([])
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("the per-client cap counts unfinished runs only and is per client; racing starts share it", () =>
    Effect.gen(function* () {
      const h = yield* harness({ maxRuns: 2 })
      const outcomes = yield* Effect.all(Array.from({ length: 5 }, (_, i) => Effect.either(alice(run(h, { input: `t${i}` })))), { concurrency: "unbounded" })
      expect(outcomes.filter((o) => o._tag === "Right").length).toBe(2)
      const refused = outcomes.find((o) => o._tag === "Left")
      expect(refused?._tag === "Left" && errorCode(refused.left)).toBe("bridge.too_many_runs")
      // Bob has his own cap.
      yield* bob(run(h, {}))
      // A finished run frees a slot.
      yield* h.hermes.emit([...h.hermes.runs.values()].find((r) => r.request.input === "t0" || r.request.input.startsWith("t"))!.id, "run.cancelled")
      yield* eventually(Effect.either(alice(run(h, { input: "after" }))), (e) => e._tag === "Right", "a free slot")
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("Hermes's 429 queues the start (nothing started) until a slot frees; Hermes down is agent_unavailable", () =>
    Effect.gen(function* () {
      // Hermes takes 1, the bridge believes 10 until told otherwise: the second start reaches Hermes and
      // is refused there (with the bridge's capacity at Hermes's, it would wait without asking).
      const h = yield* harness({ maxConcurrent: 1, env: { AGENT_BRIDGE_HERMES_MAX_CONCURRENT_RUNS: "10" } })
      const first = yield* alice(run(h, { input: "first" }))
      const queued = yield* bob(run(h, { input: "second" }))
      expect(queued.status).toBe("queued")
      expect(queued.queue_position).toBe(1)
      expect((yield* bob(h.runs.events(queued.run_id, 0, 10))).events.map((e) => [e.type, e.data["reason"]])).toEqual([["run.queued", "refused"]])
      // Hermes answered 429 once; nothing more is sent while it holds the profile.
      expect(h.hermes.calls.start.length).toBe(2)
      yield* h.hermes.emit([...h.hermes.runs.values()].find((r) => r.request.input === "first")!.id, "run.completed", { output: "done", usage: {} })
      expect((yield* alice(h.runs.wait(first.run_id, 30))).status).toBe("completed")
      const admitted = yield* eventually(bob(h.runs.status(queued.run_id, 0)), (v) => v.status === "running", "the queued run admitted")
      expect(admitted.queue_position).toBeUndefined()
      const types = (yield* bob(h.runs.events(queued.run_id, 0, 10))).events.map((e) => e.type)
      expect(types).toEqual(["run.queued", "run.started"])
      // Hermes's cap was learned (1): with bob's run live, carol's start would wait in the queue.
      yield* h.hermes.emit([...h.hermes.runs.values()].find((r) => r.request.input === "second")!.id, "run.completed", { output: "done", usage: {} })
      expect((yield* bob(h.runs.wait(queued.run_id, 30))).status).toBe("completed")
      h.hermes.faults.down = true
      expect(errorCode(yield* failure(as("carol")(run(h, {}))))).toBe("bridge.agent_unavailable")
      const list = yield* as(Caller.admin)(h.runs.list({ limit: 200 }))
      expect(list.runs.length).toBe(2)
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a ledger that cannot record the run stops it in Hermes and answers store_unavailable", () =>
    Effect.gen(function* () {
      const failingInsert = ledgerWith(() => ({ insert: () => Effect.fail(new LedgerError({ operation: "insert", cause: new Error("disk I/O error") })) }))
      const h = yield* harness({ ledger: failingInsert })
      const e = yield* failure(alice(run(h, { idempotency_key: "k" })))
      expect(errorCode(e)).toBe("bridge.store_unavailable")
      const hid = [...h.hermes.runs.keys()][0]!
      expect(h.hermes.calls.stop).toEqual([hid])
      expect(h.hermes.runs.get(hid)?.status).toBe("cancelled")
      expect((yield* alice(h.runs.list({ limit: 20 }))).runs).toEqual([])
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a slot the store could not reserve queues the start; the queue admits it once the store answers", () =>
    Effect.gen(function* () {
      let reservations = 0
      const flakyReserve = ledgerWith((l) => ({
        reserveSlot: (profile, capacity, token, freshSince) =>
          reservations++ === 0
            ? Effect.fail(new LedgerError({ operation: "reserveSlot", cause: new Error("canceling statement due to lock timeout") }))
            : l.reserveSlot(profile, capacity, token, freshSince)
      }))
      const h = yield* harness({ ledger: flakyReserve })
      const view = yield* alice(run(h, { input: "task" }))
      expect(view.status).toBe("queued")
      expect((yield* alice(h.runs.events(view.run_id, 0, 10))).events.map((e) => [e.type, e.data["reason"]])).toEqual([["run.queued", "capacity"]])
      const admitted = yield* eventually(alice(h.runs.status(view.run_id, 0)), (v) => v.status === "running", "the queued run admitted")
      expect(admitted.queue_position).toBeUndefined()
      expect(h.hermes.calls.start.length).toBe(1)
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a start that loses the key's race and cannot read the winner does not stop the winner's run", () =>
    Effect.gen(function* () {
      // The key's row exists (IdempotencyTaken) but reading it fails: two storage faults in a row.
      let lookups = 0
      const racedLedger = ledgerWith((l) => ({
        byIdempotencyKey: (profile, key) =>
          lookups++ === 0 ? l.byIdempotencyKey(profile, key) : Effect.fail(new LedgerError({ operation: "get", cause: new Error("database is locked") })),
        insert: (r) => Effect.fail(new IdempotencyTaken({ key: r.idempotencyKey ?? "" }))
      }))
      const h = yield* harness({ ledger: racedLedger })
      // The winner's run, already in Hermes under the same key.
      const profile = yield* h.hermes.shape.profile("hermes")
      const winner = yield* h.hermes.shape.start(profile, { input: "task", idempotencyKey: "alice:k" })
      const e = yield* failure(alice(run(h, { idempotency_key: "k" })))
      expect(errorCode(e)).toBe("bridge.store_unavailable")
      expect(h.hermes.calls.stop).not.toContain(winner.hermesRunId)
      expect(h.hermes.runs.get(winner.hermesRunId)?.status).toBe("running")
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("every run tool answers bridge.unavailable while starting or draining", () =>
    Effect.gen(function* () {
      for (const phase of ["starting", "draining"] as const) {
        const h = yield* harness({ phase })
        const calls: ReadonlyArray<Effect.Effect<unknown, BridgeError, Caller | Progress>> = [
          h.runs.start({ agent: "hermes", input: "x" }),
          h.runs.wait("run_x", 1),
          h.runs.status("run_x", 0),
          h.runs.events("run_x", 0, 10),
          h.runs.answer("run_x", "r", "a"),
          h.runs.steer("run_x", "s"),
          h.runs.stop("run_x"),
          h.runs.list({ limit: 10 })
        ]
        for (const call of calls) expect(errorCode(yield* failure(alice(call)))).toBe("bridge.unavailable")
      }
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a negative offset is invalid_offset; foreign and unknown runs are run_not_found", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const a = yield* alice(run(h, {}))
      expect(errorCode(yield* failure(alice(h.runs.status(a.run_id, -1))))).toBe("bridge.invalid_offset")
      expect(errorCode(yield* failure(bob(h.runs.status(a.run_id, 0))))).toBe("bridge.run_not_found")
      expect(errorCode(yield* failure(alice(h.runs.status("run_0123", 0))))).toBe("bridge.run_not_found")
    }).pipe(Effect.scoped, Effect.provide(TestDb)))
})
