/**
 * What a run's follower starts from (services/runs/RunSupervisor.ts): the supervisor's own runtime,
 * never the context of the fiber that attached the run (a tool call's services and log annotations
 * would otherwise stay with every parked run for as long as it lives), and interruptible by
 * shutdown whatever region the supervisor was built in.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Context, Deferred, Effect, Exit, Fiber, FiberRef, HashMap, Option, Scope, TestClock } from "effect"
import { makeRunSupervisor, superviseFollow } from "../../src/services/runs/RunSupervisor.ts"

class RequestOnly extends Context.Tag("test/RequestOnly")<RequestOnly, { readonly id: string }>() {}

describe("a run's follower", () => {
  it.live("holds none of the attaching caller's services or log annotations", () =>
    Effect.gen(function* () {
      const seen = yield* Deferred.make<{ readonly service: boolean; readonly annotations: ReadonlyArray<string> }>()
      const followOnce = (_runId: string) =>
        Effect.gen(function* () {
          const service = yield* Effect.serviceOption(RequestOnly)
          const annotations = yield* FiberRef.get(FiberRef.currentLogAnnotations)
          yield* Deferred.succeed(seen, { service: Option.isSome(service), annotations: [...HashMap.keys(annotations)] })
        })
      const supervisor = yield* makeRunSupervisor(followOnce)
      yield* supervisor.attach("run_a").pipe(
        Effect.provideService(RequestOnly, { id: "the tool call" }),
        Effect.annotateLogs({ request: "the tool call" })
      )
      const inFollower = yield* Deferred.await(seen)
      expect(inFollower.service).toBe(false)
      expect(inFollower.annotations).toEqual(["runId"])
    }).pipe(Effect.scoped))

  it.live("is interrupted when the supervisor's scope closes, though the supervisor was built uninterruptibly", () =>
    Effect.gen(function* () {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const followOnce = (_runId: string) =>
        Effect.zipRight(Deferred.succeed(started, undefined), Effect.never).pipe(Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined)))
      const scope = yield* Scope.make()
      const supervisor = yield* Effect.uninterruptible(Scope.extend(makeRunSupervisor(followOnce), scope))
      yield* supervisor.attach("run_a")
      yield* Deferred.await(started)
      // Disconnected: a close that cannot interrupt its follower would hang; the test fails at the timeout instead.
      const closed = yield* Scope.close(scope, Exit.void).pipe(Effect.disconnect, Effect.timeout("5 seconds"), Effect.exit)
      expect(Exit.isSuccess(closed)).toBe(true)
      expect(yield* Deferred.isDone(interrupted)).toBe(true)
    }))
})

describe("the follow loop (superviseFollow)", () => {
  it.effect("restarts a follow that fails or dies, backing off further each time, and resumes it (a status check) from the second", () =>
    Effect.gen(function* () {
      const attempts: Array<{ readonly at: number; readonly resume: boolean }> = []
      const followOnce = (_runId: string, resume: boolean) =>
        Effect.gen(function* () {
          attempts.push({ at: yield* TestClock.currentTimeMillis, resume })
          if (attempts.length === 1) return yield* Effect.fail("stalled")
          if (attempts.length === 2) return yield* Effect.die(new Error("a defect"))
          if (attempts.length === 3) return yield* Effect.fail("stalled again")
        })
      const fiber = yield* Effect.fork(superviseFollow(followOnce, "run_a", true))
      for (let i = 0; i < 60; i++) yield* TestClock.adjust("50 millis")
      expect(yield* Fiber.join(fiber)).toBeUndefined()
      expect(attempts.map((a) => a.resume)).toEqual([false, true, true, true])
      // RESTART_SCHEDULE: 250 ms, doubling, each within ±20% (jittered).
      const gaps = attempts.slice(1).map((a, i) => a.at - attempts[i]!.at)
      expect(gaps[0]).toBeGreaterThanOrEqual(200)
      expect(gaps[0]).toBeLessThanOrEqual(300)
      expect(gaps[1]).toBeGreaterThanOrEqual(400)
      expect(gaps[1]).toBeLessThanOrEqual(600)
      expect(gaps[2]).toBeGreaterThanOrEqual(800)
      expect(gaps[2]).toBeLessThanOrEqual(1200)
    }))

  it.effect("ends with the cause, unrestarted, when the follow was interrupted", () =>
    Effect.gen(function* () {
      let attempts = 0
      const followOnce = () => Effect.suspend(() => {
        attempts += 1
        return Effect.interrupt
      })
      const cause = yield* Effect.flip(superviseFollow(followOnce, "run_a", false))
      expect(Cause.isInterruptedOnly(cause)).toBe(true)
      expect(attempts).toBe(1)
    }))
})
