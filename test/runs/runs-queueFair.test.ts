/**
 * The run queue's rules (issue 38 items 2 and 3) against the fake Hermes: slots go round-robin by
 * client, the per-client cap counts live and queued runs apart, a full queue is a typed refusal,
 * and every run tool works on a queued run.
 */
import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect, Exit, Scope } from "effect"
import { errorCode } from "../../src/domain/errors.ts"
import { queuePlace } from "../../src/domain/runs/queuePlace.ts"
import type { RunsShape } from "../../src/services/runs/Runs.ts"
import { TestDb } from "../support/testDb.ts"
import { as, buildRuns, eventually, failure, harness } from "./support/harness.ts"

const start = (h: { readonly runs: RunsShape }, client: string, input: string, key?: string) =>
  as(client)(h.runs.start({ agent: "hermes", input, ...(key === undefined ? {} : { idempotency_key: key }) }))

/** The inputs Hermes has been asked to start, in order. */
const startedInputs = (h: { readonly hermes: { readonly calls: { readonly start: ReadonlyArray<{ readonly input: string }> } } }) =>
  h.hermes.calls.start.map((r) => r.input)

const queueEnv = (capacity: number, queued = 16) => ({
  AGENT_BRIDGE_HERMES_MAX_CONCURRENT_RUNS: String(capacity),
  AGENT_BRIDGE_BRIDGE_MAX_QUEUED_RUNS_PER_CLIENT: String(queued)
})

describe("the run queue", () => {
  it.live("slots go round-robin by client, not first come first served", () =>
    Effect.gen(function* () {
      const h = yield* harness({ maxRuns: 10, env: queueEnv(1) })
      const first = yield* start(h, "alice", "a0")
      expect(first.status).toBe("running")
      for (const i of [1, 2, 3, 4]) expect((yield* start(h, "alice", `a${i}`)).status).toBe("queued")
      for (const i of [1, 2]) expect((yield* start(h, "bob", `b${i}`)).status).toBe("queued")
      expect((yield* start(h, "carol", "c1")).status).toBe("queued")
      // One slot: finish whatever runs, seven times, and watch who goes next.
      for (let n = 1; n <= 7; n++) {
        const running = [...h.hermes.runs.values()].find((r) => r.status === "running")!
        yield* h.hermes.complete(running.id)
        yield* eventually(Effect.sync(() => h.hermes.calls.start.length), (k) => k === n + 1, `admission ${n}`)
      }
      expect(startedInputs(h)).toEqual(["a0", "b1", "c1", "a1", "b2", "a2", "a3", "a4"])
    }).pipe(Effect.scoped, Effect.provide(TestDb)), 120_000)

  it.live("the per-client cap counts live and queued runs apart; a full queue is bridge.too_many_queued", () =>
    Effect.gen(function* () {
      const h = yield* harness({ maxRuns: 2, env: queueEnv(3, 2) })
      expect((yield* start(h, "alice", "a1")).status).toBe("running")
      expect((yield* start(h, "alice", "a2")).status).toBe("running")
      // Alice's live cap, as before: refused, not queued.
      expect(errorCode(yield* failure(start(h, "alice", "a3")))).toBe("bridge.too_many_runs")
      expect((yield* start(h, "bob", "b1")).status).toBe("running")
      // The profile is full: bob's next two wait; his queue holds two.
      expect((yield* start(h, "bob", "b2")).status).toBe("queued")
      const b3 = yield* start(h, "bob", "b3")
      expect(b3.status).toBe("queued")
      const full = yield* failure(start(h, "bob", "b4"))
      expect(errorCode(full)).toBe("bridge.too_many_queued")
      expect(full.message).toContain("bridge.max_queued_runs_per_client")
      // Nothing of the refused start was recorded or sent.
      expect((yield* as("bob")(h.runs.list({ limit: 50 }))).runs.map((r) => r.input_preview).sort()).toEqual(["b1", "b2", "b3"])
      expect(startedInputs(h)).toEqual(["a1", "a2", "b1"])
      // A slot frees: bob is below his live cap, his oldest queued run goes.
      yield* h.hermes.complete([...h.hermes.runs.values()].find((r) => r.request.input === "a1")!.id)
      yield* eventually(Effect.sync(() => startedInputs(h)), (s) => s.includes("b2"), "b2 admitted")
      // Alice has one live run: her new start waits (the profile is full).
      const a3 = yield* start(h, "alice", "a3")
      expect(a3.status).toBe("queued")
      // Bob holds his cap (2 live): the next slot passes his older queued run by for alice's.
      yield* h.hermes.complete([...h.hermes.runs.values()].find((r) => r.request.input === "a2")!.id)
      yield* eventually(Effect.sync(() => startedInputs(h)), (s) => s.includes("a3"), "a3 admitted")
      expect(startedInputs(h)).not.toContain("b3")
      expect((yield* as("bob")(h.runs.status(b3.run_id, 0))).queue_position).toBe(1)
    }).pipe(Effect.scoped, Effect.provide(TestDb)), 120_000)

  it.live("max_queued_runs_per_client 0: no queue, a start past capacity is refused", () =>
    Effect.gen(function* () {
      const h = yield* harness({ maxRuns: 4, env: queueEnv(1, 0) })
      yield* start(h, "alice", "a1")
      expect(errorCode(yield* failure(start(h, "bob", "b1")))).toBe("bridge.too_many_queued")
      expect(startedInputs(h)).toEqual(["a1"])
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a queued run answers status, wait, events, list, idempotent retries and stop; a stopped one never reaches Hermes", () =>
    Effect.gen(function* () {
      const h = yield* harness({ maxRuns: 4, env: queueEnv(1) })
      const live = yield* start(h, "alice", "live")
      const q1 = yield* start(h, "bob", "first in line", "k1")
      const q2 = yield* start(h, "bob", "second in line")
      expect([q1.status, q1.queue_position, q2.status, q2.queue_position]).toEqual(["queued", 1, "queued", 2])
      // An idempotent retry is the same run, still queued, and adds nothing.
      const again = yield* start(h, "bob", "first in line", "k1")
      expect(again.run_id).toBe(q1.run_id)
      expect(errorCode(yield* failure(start(h, "bob", "another request", "k1")))).toBe("bridge.idempotency_conflict")
      const status = yield* as("bob")(h.runs.status(q1.run_id, 0))
      expect([status.status, status.queue_position, status.output]).toEqual(["queued", 1, null])
      const listed = yield* as("bob")(h.runs.list({ status: "queued", limit: 10 }))
      expect(listed.runs.map((r) => r.run_id).sort()).toEqual([q1.run_id, q2.run_id].sort())
      expect((yield* as("bob")(h.runs.events(q1.run_id, 0, 10))).events.map((e) => e.type)).toEqual(["run.queued"])
      // A wait on a queued run times out queued, then waits through the queue.
      const early = yield* as("bob")(h.runs.wait(q1.run_id, 0.2))
      expect([early.timed_out, early.status]).toEqual([true, "queued"])
      // Steer and answer need a running run / a pending request.
      expect(errorCode(yield* failure(as("bob")(h.runs.steer(q1.run_id, "faster"))))).toBe("bridge.run_not_running")
      expect(errorCode(yield* failure(as("bob")(h.runs.answer(q1.run_id, "r1", "yes"))))).toBe("bridge.no_pending_request")
      // Stopped while queued: cancelled at once, never sent to Hermes, never admitted.
      const stopped = yield* as("bob")(h.runs.stop(q2.run_id))
      expect(stopped.status).toBe("cancelled")
      expect((yield* as("bob")(h.runs.events(q2.run_id, 0, 10))).events.map((e) => e.type)).toEqual(["run.queued", "run.stopping", "run.cancelled"])
      expect(errorCode(yield* failure(as("alice")(h.runs.status(q1.run_id, 0))))).toBe("bridge.run_not_found")
      const waiting = yield* Effect.fork(as("bob")(h.runs.wait(q1.run_id, 60)))
      yield* h.hermes.complete([...h.hermes.runs.values()].find((r) => r.request.input === "live")!.id)
      expect((yield* as("alice")(h.runs.wait(live.run_id, 30))).status).toBe("completed")
      const q1run = yield* eventually(Effect.sync(() => [...h.hermes.runs.values()].find((r) => r.request.input === "first in line")), (r) => r !== undefined, "q1 started")
      yield* h.hermes.complete(q1run!.id, "all done")
      const done = yield* waiting.await.pipe(Effect.flatten)
      expect([done.status, done.output, done.timed_out]).toEqual(["completed", "all done", false])
      const types = (yield* as("bob")(h.runs.events(q1.run_id, 0, 50))).events.map((e) => e.type)
      expect(types[0]).toBe("run.queued")
      expect(types[1]).toBe("run.started")
      expect(types.at(-1)).toBe("run.completed")
      expect(startedInputs(h)).toEqual(["live", "first in line"])
      // The client's key reached Hermes prefixed, as for any start.
      expect(h.hermes.calls.start[1]!.idempotencyKey).toBe("bob:k1")
    }).pipe(Effect.scoped, Effect.provide(TestDb)), 120_000)

  it.live("a claim whose start a restart cut off goes back to the queue and is started once, with its key", () =>
    Effect.gen(function* () {
      const h = yield* harness({ maxRuns: 4, env: queueEnv(1) })
      yield* start(h, "alice", "live")
      const q = yield* start(h, "bob", "claimed then cut off")
      // The daemon died between the claim and Hermes's answer: a claimed row with no Hermes run id.
      yield* Scope.close(h.scope, Exit.void)
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE runs SET admitted_at = 1 WHERE run_id = ${q.run_id}`
      const next = yield* Scope.make()
      yield* Effect.addFinalizer(() => Scope.close(next, Exit.void))
      const again = yield* buildRuns(h.hermes, h.inbox, h.options, next)
      // Back in the queue, first in line; the live run's end admits it.
      expect((yield* as("bob")(again.runs.status(q.run_id, 0))).queue_position).toBe(1)
      yield* h.hermes.complete([...h.hermes.runs.values()].find((r) => r.request.input === "live")!.id)
      yield* eventually(Effect.sync(() => startedInputs(h)), (s) => s.includes("claimed then cut off"), "admitted after the restart")
      expect(startedInputs(h).filter((i) => i === "claimed then cut off")).toHaveLength(1)
      // Started with a key of its own, so a Hermes that saw the cut-off start replays it.
      expect(h.hermes.calls.start.at(-1)!.idempotencyKey).toBe(`bob:${q.run_id}`)
    }).pipe(Effect.scoped, Effect.provide(TestDb)), 120_000)

  it("a queued run's place follows the round-robin", () => {
    const q = [
      { runId: "a1", client: "a" }, { runId: "a2", client: "a" }, { runId: "a3", client: "a" },
      { runId: "b1", client: "b" }, { runId: "c1", client: "c" }, { runId: "b2", client: "b" }
    ]
    expect(q.map((r) => queuePlace(q, r.runId))).toEqual([1, 4, 6, 2, 3, 5])
    expect(queuePlace(q, "zz")).toBeNull()
    expect(queuePlace([], "a1")).toBeNull()
  })
})
