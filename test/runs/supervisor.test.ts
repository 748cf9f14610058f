/**
 * What a run's follower starts from (services/runs/RunSupervisor.ts): the supervisor's own runtime,
 * never the context of the fiber that attached the run (a tool call's services and log annotations
 * would otherwise stay with every parked run for as long as it lives), and interruptible by
 * shutdown whatever region the supervisor was built in.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, FiberRef, HashMap, Option, Scope } from "effect"
import { makeRunSupervisor } from "../../src/services/runs/RunSupervisor.ts"

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
