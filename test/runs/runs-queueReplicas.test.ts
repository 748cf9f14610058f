/**
 * One queue over replicas (issue 38 item 4): two run services over one database (PostgreSQL in
 * the PG config: each claim on its own pooled connection, under the profile's advisory lock), one
 * Hermes. The profile's capacity is counted from the ledger's live runs, whichever replica started
 * them; a slot freed on either admits the next queued run wherever it was queued; a replica that
 * goes away leaves its queued runs to the other.
 */
import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect, Exit, Scope } from "effect"
import { TestDb } from "../support/testDb.ts"
import { as, buildRuns, eventually, harness } from "./support/harness.ts"

const options = { maxRuns: 10, env: { AGENT_BRIDGE_HERMES_MAX_CONCURRENT_RUNS: "2" } }

/** Runs holding a slot of the default profile, as the ledger counts them. */
const liveInLedger = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ n: number | string }>`SELECT count(*) AS n FROM runs WHERE profile = 'default' AND ended_at IS NULL AND (status <> 'queued' OR admitted_at IS NOT NULL)`
).pipe(Effect.map((rows) => Number(rows[0]!.n)))

describe("the run queue over replicas", () => {
  it.live("capacity is counted over both replicas; a slot freed on one admits a run queued on the other; a replica's exit keeps the queue", () =>
    Effect.gen(function* () {
      const a = yield* harness(options)
      const bScope = yield* Scope.make()
      const b = yield* buildRuns(a.hermes, a.inbox, a.options, bScope)
      const r1 = yield* as("alice")(a.runs.start({ agent: "hermes", input: "r1" }))
      const r2 = yield* as("bob")(b.runs.start({ agent: "hermes", input: "r2" }))
      expect([r1.status, r2.status]).toEqual(["running", "running"])
      // Each replica sees the other's run in the ledger: the profile is full for both.
      const r3 = yield* as("carol")(a.runs.start({ agent: "hermes", input: "r3" }))
      const r4 = yield* as("dave")(b.runs.start({ agent: "hermes", input: "r4" }))
      expect([r3.status, r4.status]).toEqual(["queued", "queued"])
      expect(a.hermes.calls.start.length).toBe(2)
      // Replica b goes away with its run live: its queued run r4 stays in the queue.
      yield* Scope.close(bScope, Exit.void)
      // r2 (b's) ends in Hermes, with b gone: the ledger learns it only from a's side, so end
      // r1 instead — a's follower writes it, a's queue admits whichever queued run is next.
      yield* a.hermes.complete([...a.hermes.runs.values()].find((r) => r.request.input === "r1")!.id)
      yield* eventually(Effect.sync(() => a.hermes.calls.start.length), (n) => n === 3, "one admission")
      expect(yield* liveInLedger).toBeLessThanOrEqual(2)
      const admitted = a.hermes.calls.start[2]!.input
      expect(["r3", "r4"]).toContain(admitted)
      // A second slot: the other queued run, queued on either replica, is admitted by a.
      const next = [...a.hermes.runs.values()].find((r) => r.request.input === admitted)!
      yield* a.hermes.complete(next.id)
      yield* eventually(Effect.sync(() => a.hermes.calls.start.map((s) => s.input)), (s) => s.includes("r3") && s.includes("r4"), "both admitted")
      const done4 = yield* eventually(as("dave")(a.runs.status(r4.run_id, 0)), (v) => v.status === "running" || v.status === "completed", "r4 running")
      expect(done4.queue_position).toBeUndefined()
    }).pipe(Effect.scoped, Effect.provide(TestDb)), 120_000)

  it.live("a burst over two replicas never has more than the capacity live, and every run is admitted", () =>
    Effect.gen(function* () {
      const a = yield* harness(options)
      const b = yield* buildRuns(a.hermes, a.inbox, a.options, a.scope)
      const services = [a, b]
      const views = yield* Effect.forEach(Array.from({ length: 12 }, (_, i) => i), (i) =>
        as(`c${i % 4}`)(services[i % 2]!.runs.start({ agent: "hermes", input: `burst ${i}` })), { concurrency: "unbounded" })
      expect(views.filter((v) => v.status !== "queued").length).toBeLessThanOrEqual(2)
      let peak = 0
      for (let round = 0; round < 400 && a.hermes.calls.start.length < 12; round++) {
        peak = Math.max(peak, yield* liveInLedger)
        const running = [...a.hermes.runs.values()].filter((r) => r.status === "running")
        expect(running.length).toBeLessThanOrEqual(2)
        if (running.length > 0) yield* a.hermes.complete(running[0]!.id)
        // Another replica's commit, as the change feed tells it (b hears a's writes, a hears b's).
        yield* a.otherProcess.otherCommitted("runs")
        yield* b.otherProcess.otherCommitted("runs")
        yield* Effect.sleep("30 millis")
      }
      expect(peak).toBeLessThanOrEqual(2)
      expect(a.hermes.calls.start.length).toBe(12)
      expect(new Set(a.hermes.calls.start.map((s) => s.input)).size).toBe(12)
    }).pipe(Effect.scoped, Effect.provide(TestDb)), 120_000)
})
