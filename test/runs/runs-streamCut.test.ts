/**
 * A stream that ends without its terminal event (Hermes 0.20 splits a run's frames between
 * concurrent subscribers, so the terminal frame may go elsewhere): before the run is closed, its
 * output and status come from Hermes's status, and no text is lost.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestDb } from "../support/testDb.ts"
import { as, eventually, harness } from "./support/harness.ts"

const alice = as("alice")

describe("a stream cut before its terminal event", () => {
  it.live("the stored text is completed from Hermes's output", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "greet" }))
      const id = [...h.hermes.runs.keys()][0]!
      yield* h.hermes.deltas(id, ["Hel"])
      yield* eventually(alice(h.runs.status(view.run_id, 0)), (v) => v.output === "Hel", "the first text")
      // The rest went to another subscriber; Hermes finished the run.
      yield* h.hermes.finishQuietly(id, "Hello, world")
      yield* h.hermes.cutStreams
      const done = yield* alice(h.runs.wait(view.run_id, 30))
      expect(done.status).toBe("completed")
      expect(done.output).toBe("Hello, world")
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a stored text that is not the start of Hermes's output is replaced by it", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "greet" }))
      const id = [...h.hermes.runs.keys()][0]!
      yield* h.hermes.deltas(id, ["Hel", "wor"])
      yield* eventually(alice(h.runs.status(view.run_id, 0)), (v) => v.output === "Helwor", "the split text")
      yield* h.hermes.finishQuietly(id, "Hello, world")
      yield* h.hermes.cutStreams
      const done = yield* alice(h.runs.wait(view.run_id, 30))
      expect(done.output).toBe("Hello, world")
    }).pipe(Effect.scoped, Effect.provide(TestDb)))

  it.live("a run Hermes still runs is followed again, and ends on its own stream", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "greet" }))
      const id = [...h.hermes.runs.keys()][0]!
      yield* h.hermes.deltas(id, ["Hel"])
      yield* eventually(alice(h.runs.status(view.run_id, 0)), (v) => v.output === "Hel", "the first text")
      const before = h.hermes.calls.follow
      yield* h.hermes.cutStreams
      yield* eventually(Effect.sync(() => h.hermes.calls.follow), (n) => n > before, "a new follow")
      yield* h.hermes.deltas(id, ["lo"])
      yield* h.hermes.complete(id)
      const done = yield* alice(h.runs.wait(view.run_id, 30))
      expect(done.status).toBe("completed")
      expect(done.output).toBe("Hello")
    }).pipe(Effect.scoped, Effect.provide(TestDb)))
})
