/**
 * Hermes at capacity (issue 38): starts past a profile's capacity wait in the bridge's queue
 * instead of failing, and are started when a slot frees, fairly across clients.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestDb } from "../support/testDb.ts"
import { as } from "./support/harness.ts"
import { simHarness } from "./support/simHarness.ts"

const clients = ["c1", "c2", "c3", "c4", "c5"]

describe("the run queue against the simulator", () => {
  it.live("20 starts from 5 clients against a Hermes capped at 10: none fails, every run completes", () =>
    Effect.gen(function* () {
      const h = yield* simHarness({ sim: { maxConcurrentRuns: 10 }, maxRuns: 4 })
      const starts = clients.flatMap((c) => [0, 1, 2, 3].map((i) => ({ c, input: `[sim:slow=600ms] ${c} task ${i}` })))
      const views = yield* Effect.forEach(starts, ({ c, input }) => Effect.either(as(c)(h.runs.start({ agent: "hermes", input }))), {
        concurrency: "unbounded"
      })
      const failed = views.filter((v) => v._tag === "Left")
      expect(failed.map((f) => (f._tag === "Left" ? f.left.message : ""))).toEqual([])
      const started = views.flatMap((v) => (v._tag === "Right" ? [v.right] : []))
      expect(started.some((v) => v.status === "queued")).toBe(true)
      const done = yield* Effect.forEach(started, (v) => as(v.client)(h.runs.wait(v.run_id, 120)), { concurrency: "unbounded" })
      expect(done.map((d) => d.status)).toEqual(started.map(() => "completed"))
      // Hermes never saw more than its cap in flight.
      expect(h.sim.state.peakLiveRuns).toBeLessThanOrEqual(10)
    }).pipe(Effect.scoped, Effect.provide(TestDb)), 180_000)
})
