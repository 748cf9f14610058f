/** The per-key single flight behind `agent_run`'s idempotency keys. */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, FiberStatus, Scope } from "effect"
import { makeSingleFlight } from "../../src/services/runs/singleFlight.ts"

/** Until every fiber waits (suspended: in its flight, on the leader's outcome or on the gate), not a sleep. */
const untilAllWait = (fibers: ReadonlyArray<Fiber.RuntimeFiber<unknown, unknown>>) =>
  Effect.gen(function* () {
    for (let i = 0; i < 10_000; i++) {
      const states = yield* Effect.forEach(fibers, (f) => f.status)
      if (states.every(FiberStatus.isSuspended)) return
      yield* Effect.yieldNow()
    }
    return yield* Effect.dieMessage("the fibers never all waited")
  })

describe("single flight per key", () => {
  it.effect("joiners get the leader's outcome; the work runs once; the key is free afterwards", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const sf = makeSingleFlight<number, string>()
      const gate = yield* Deferred.make<void>()
      let runs = 0
      const work = Effect.zipRight(Deferred.await(gate), Effect.sync(() => ++runs))
      const fibers = yield* Effect.forEach(["a", "b", "c"], (tag) => Effect.fork(sf.flight("k", tag, work, scope)))
      yield* untilAllWait(fibers)
      expect(sf.size()).toBe(1)
      yield* Deferred.succeed(gate, undefined)
      const flights = yield* Effect.forEach(fibers, Fiber.join)
      expect(runs).toBe(1)
      expect(flights.map((f) => f.led)).toEqual([true, false, false])
      expect(flights.every((f) => Exit.isSuccess(f.exit) && f.exit.value === 1 && f.leaderTag === "a")).toBe(true)
      expect(sf.size()).toBe(0)
      // A failure is shared the same way, and a later call leads again.
      const failed = yield* sf.flight("k", "d", Effect.fail("boom"), scope)
      expect(Exit.isFailure(failed.exit) && failed.led).toBe(true)
      const again = yield* sf.flight("k", "e", Effect.succeed(7), scope)
      expect(again.led && Exit.isSuccess(again.exit) && again.exit.value).toBe(7)
      yield* Scope.close(scope, Exit.void)
    }))

  it.effect("a leader whose caller goes away still finishes and answers the joiners", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const sf = makeSingleFlight<string, never>()
      const gate = yield* Deferred.make<void>()
      const leader = yield* Effect.fork(sf.flight("k", "a", Effect.as(Deferred.await(gate), "done"), scope))
      yield* untilAllWait([leader])
      const joiner = yield* Effect.fork(sf.flight("k", "b", Effect.succeed("never run"), scope))
      yield* untilAllWait([joiner])
      yield* Fiber.interrupt(leader)
      yield* Deferred.succeed(gate, undefined)
      const joined = yield* Fiber.join(joiner)
      expect(joined.led).toBe(false)
      expect(Exit.isSuccess(joined.exit) && joined.exit.value).toBe("done")
      expect(sf.size()).toBe(0)
      yield* Scope.close(scope, Exit.void)
    }))
})
