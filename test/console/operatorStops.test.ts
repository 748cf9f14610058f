/**
 * The operator's stop over an in-memory database and a run service double: the CLI's recording
 * layer refuses an unknown run and answers an ended one without writing; the daemon's layer carries
 * out what was pending at start, records each outcome (stopping, gone, a failure's code), leaves a
 * request pending while the run service is unavailable, and picks up a request on the next signal.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Ref, Schedule } from "effect"
import { AgentUnavailable, RunNotFound, Unavailable } from "../../src/domain/errors.ts"
import type { RunView } from "../../src/domain/runs/view.ts"
import { OperatorStops, OperatorStopsLive, OperatorStopsRecording } from "../../src/services/console/OperatorStops.ts"
import { makeStopRequests } from "../../src/services/console/stopRequests.ts"
import { ChangeFeedBump, ChangeFeedTest } from "../../src/storage/ChangeFeed.ts"
import { LifecycleReady } from "../../src/common/Lifecycle.ts"
import type { StopActor } from "../../src/services/runs/Runs.ts"
import { RunsTest } from "../../src/services/runs/RunsTest.ts"
import { Ledger, type NewRun } from "../../src/services/runs/Ledger.ts"
import { LedgerTest } from "../../src/services/runs/LedgerTest.ts"
import { newRun as baseRun } from "../support/records.ts"
import { TestDb } from "../support/testDb.ts"

const newRun = (runId: string, status: NewRun["status"] = "running"): NewRun => baseRun(runId, { status })

type Answer = "ok" | "not_found" | "hermes_down" | "unavailable"

/** A run service whose stop answers as `answers` says per run, and records who asked. */
const runsDouble = (answers: Ref.Ref<Record<string, Answer>>, calls: Ref.Ref<ReadonlyArray<[string, StopActor | undefined]>>) =>
  RunsTest({
    stop: (runId: string, actor?: StopActor) =>
      Effect.gen(function* () {
        yield* Ref.update(calls, (c) => [...c, [runId, actor] as [string, StopActor | undefined]])
        const answer = (yield* Ref.get(answers))[runId] ?? "ok"
        if (answer === "not_found") return yield* new RunNotFound({ message: "no run" })
        if (answer === "hermes_down") return yield* new AgentUnavailable({ message: "Hermes is not reachable" })
        if (answer === "unavailable") return yield* new Unavailable({ message: "the bridge is shutting down" })
        return { status: "stopping" } as RunView
      })
  })

/** `read` again every 20 ms until `done` holds (at most 5 s). */
const settled = <A, E, R>(read: Effect.Effect<A, E, R>, done: (a: A) => boolean) =>
  read.pipe(Effect.filterOrFail(done, () => "not yet" as const), Effect.retry(Schedule.spaced("20 millis")), Effect.timeout("5 seconds"))

const base = Layer.mergeAll(LedgerTest, ChangeFeedTest, LifecycleReady)

describe("OperatorStops", () => {
  it.effect("Recording: unknown run is run_not_found, an ended run is answered without a row, a live one is recorded", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      yield* ledger.insert(newRun("live"))
      yield* ledger.insert(newRun("done", "completed"))
      const stops = yield* OperatorStops
      const unknown = yield* Effect.flip(stops.request("nope", "cli"))
      expect(unknown._tag).toBe("RunNotFound")
      expect((yield* stops.request("done", "cli"))._tag).toBe("AlreadyEnded")
      const store = yield* makeStopRequests
      expect(Option.isNone(yield* store.get("done"))).toBe(true)
      const live = yield* stops.request("live", "cli")
      expect(live._tag === "Requested" && live.request.doneAt === null && live.request.via === "cli").toBe(true)
      // Asked again while pending: still the one request, not carried out (the CLI never does).
      yield* stops.request("live", "page")
      expect((yield* store.pending).map((r) => [r.runId, r.via])).toEqual([["live", "cli"]])
    }).pipe(Effect.provide(OperatorStopsRecording.pipe(Layer.provideMerge(base)))))

  it.live("Live: carries out what was pending at start, records each outcome, keeps one pending while unavailable", () =>
    Effect.gen(function* () {
      const answers = yield* Ref.make<Record<string, Answer>>({ gone: "not_found", down: "hermes_down", draining: "unavailable" })
      const calls = yield* Ref.make<ReadonlyArray<[string, StopActor | undefined]>>([])
      const ledger = yield* Ledger
      const store = yield* makeStopRequests
      for (const id of ["fine", "gone", "down", "draining"]) {
        yield* ledger.insert(newRun(id))
        yield* store.request(id, "cli")
      }
      const outcomes = Effect.flatMap(Effect.forEach(["fine", "gone", "down", "draining"], (id) => store.get(id)), (rs) =>
        Effect.succeed(rs.map((r) => Option.getOrThrow(r).outcome)))
      yield* Effect.gen(function* () {
        yield* OperatorStops
        const done = yield* settled(outcomes, (o) => o.slice(0, 3).every((x) => x !== null))
        expect(done).toEqual(["stopping", "gone", "failed: bridge.agent_unavailable: Hermes is not reachable", null])
        expect((yield* Ref.get(calls)).find(([id]) => id === "fine")).toEqual(["fine", { by: "operator", via: "cli" }])

        // The next signal (another process committed) carries out the one left pending.
        yield* Ref.set(answers, {})
        const feed = yield* ChangeFeedBump
        yield* feed.otherCommitted("stops")
        const after = yield* settled(outcomes, (o) => o[3] !== null)
        expect(after[3]).toBe("stopping")
      }).pipe(Effect.provide(OperatorStopsLive.pipe(Layer.provide(runsDouble(answers, calls)))), Effect.scoped)
    }).pipe(Effect.provide(base)))

  it.effect("a finished request is re-opened when asked again", () =>
    Effect.gen(function* () {
      const store = yield* makeStopRequests
      yield* store.request("r", "cli")
      yield* store.finish("r", "failed: x")
      const again = yield* store.request("r", "page")
      expect(again.doneAt).toBeNull()
      expect(again.via).toBe("page")
      expect((yield* store.pending).length).toBe(1)
      const sql = yield* SqlClient.SqlClient
      expect((yield* sql<{ n: number }>`SELECT count(*) AS n FROM run_stop_requests`)[0]?.n).toBe(1)
    }).pipe(Effect.provide(TestDb)))
})
