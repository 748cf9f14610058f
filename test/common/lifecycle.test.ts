/**
 * The daemon's phase (`src/common/Lifecycle.ts`): `started` waits for the phase to leave `starting`
 * as an event, not by looking again on a timer (issue 41: the push worker and operator stops waited
 * for it with a 50 ms poll); it answers at once when the phase has already left.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Option, TestClock } from "effect"
import { Lifecycle, LifecycleAt } from "../../src/common/Lifecycle.ts"

describe("Lifecycle.started", () => {
  it.effect("waits while starting (however long the clock moves) and answers the phase it moved to", () =>
    Effect.gen(function* () {
      const lifecycle = yield* Lifecycle
      const waiting = yield* Effect.fork(lifecycle.started)
      yield* TestClock.adjust("1 hour")
      expect(Option.isNone(yield* Fiber.poll(waiting))).toBe(true)
      yield* lifecycle.set("ready")
      expect(yield* Fiber.join(waiting)).toBe("ready")
    }).pipe(Effect.provide(LifecycleAt("starting"))))

  it.effect("answers at once once the phase has left starting", () =>
    Effect.gen(function* () {
      const lifecycle = yield* Lifecycle
      expect(yield* lifecycle.started).toBe("draining")
    }).pipe(Effect.provide(LifecycleAt("draining"))))
})
