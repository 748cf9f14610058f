/**
 * A wait notices a run another process wrote (a second daemon on the same database follows it, so
 * this process's follower never publishes the change): on the change feed's next change of topic
 * `runs` the wait reads the run again. Without such a change, the wait runs to its timeout.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Option, TestClock } from "effect"
import { TestDb } from "../support/testDb.ts"
import { as, harness } from "./support/harness.ts"

const alice = as("alice")

/** Ends the run in the ledger behind this process's back, as another daemon's follower would. */
const endedElsewhere = (runId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE runs SET status = 'completed', updated_at = updated_at + 1 WHERE run_id = ${runId}`)

/** Moves the clock in small steps so the waiter's fibers get to run. */
const advance = (ms: number, step = 50) =>
  Effect.gen(function* () {
    for (let t = 0; t < ms; t += step) {
      yield* TestClock.adjust(Math.min(step, ms - t))
      yield* Effect.yieldNow()
    }
  })

describe("a wait and another process's writes", () => {
  it.scoped("another process ends the run: the feed's change of topic runs ends the wait, not timed out", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "slow" }))
      const waiting = yield* Effect.fork(alice(h.runs.wait(view.run_id, 120)))
      yield* advance(200)
      yield* endedElsewhere(view.run_id)
      yield* advance(1_000)
      expect(Option.isNone(yield* Fiber.poll(waiting))).toBe(true) // nobody told this process yet
      yield* h.otherProcess.otherCommitted("runs", view.run_id)
      yield* advance(200)
      const result = yield* Fiber.join(waiting)
      expect(result.timed_out).toBe(false)
      expect(result.status).toBe("completed")
    }).pipe(Effect.provide(TestDb)))

  it.scoped("a change of another run, or of this process's own topic, leaves the wait waiting", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "slow" }))
      const waiting = yield* Effect.fork(alice(h.runs.wait(view.run_id, 5)))
      yield* advance(200)
      yield* endedElsewhere(view.run_id)
      yield* h.otherProcess.otherCommitted("runs", "run_someone_else")
      yield* h.otherProcess.otherCommitted("inbox")
      yield* advance(1_000)
      expect(Option.isNone(yield* Fiber.poll(waiting))).toBe(true)
      yield* advance(5_000, 500)
      expect((yield* Fiber.join(waiting)).timed_out).toBe(false) // the final read sees the end
    }).pipe(Effect.provide(TestDb)))
})
