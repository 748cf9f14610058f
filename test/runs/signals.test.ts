/**
 * RunSignals holds one ref per run someone waits on, and drops it when the run ends. A publish that
 * arrives after the terminal one (a stop or a waiter publishing the state it read just before the
 * follower committed the end) must not bring the entry back: the run never publishes again, so it
 * would stay in the map for the life of the daemon.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import type { RunStatus } from "../../src/domain/runs/view.ts"
import type { RunRecord } from "../../src/services/runs/Ledger.ts"
import { makeRunSignals } from "../../src/services/runs/RunSignals.ts"
import { runRecord } from "../support/records.ts"

const record = (status: RunStatus, lastSeq: number, updatedAt: number): RunRecord => runRecord({ runId: "run_1", status, lastSeq, updatedAt })

describe("RunSignals", () => {
  it.effect("a publish that arrives after the run ended leaves no entry behind", () =>
    Effect.gen(function* () {
      const signals = yield* makeRunSignals
      const stopping = record("stopping", 3, 30)
      const ref = yield* signals.ref(record("running", 2, 20))
      // The follower commits the end and publishes it; then the stop publishes what it wrote before.
      yield* signals.publish(record("cancelled", 4, 40))
      yield* signals.publish(stopping)
      expect(yield* signals.size).toBe(0)
      // The waiter holding the ref was told the end.
      expect((yield* Stream.runHead(ref.changes)).pipe((o) => o._tag === "Some" && o.value.status)).toBe("cancelled")
    }))

  it.effect("a waiter's ref sees every later publish, and the newest state wins", () =>
    Effect.gen(function* () {
      const signals = yield* makeRunSignals
      const ref = yield* signals.ref(record("running", 1, 10))
      yield* signals.publish(record("waiting_for_approval", 3, 30))
      yield* signals.publish(record("running", 2, 20))
      expect((yield* ref.get).status).toBe("waiting_for_approval")
      expect(yield* signals.size).toBe(1)
      yield* signals.publish(record("completed", 4, 40))
      expect((yield* ref.get).status).toBe("completed")
      expect(yield* signals.size).toBe(0)
    }))
})
