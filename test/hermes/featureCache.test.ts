/**
 * The per-profile feature cache is shared by every caller: a steer, a start, the agents list's
 * probe (which gives up after 1.8 s) and doctor (3 s) may all wait on one lookup. Effect's `Cache`
 * hands the caller that runs a lookup's interruption to every other caller waiting on it, so a
 * probe that timed out used to end a client's steer with "the tool call was interrupted" (seen in
 * the crash chaos test). A caller that is not itself interrupted must get the features.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Ref } from "effect"
import { makeFeatureCache, noFeatures } from "../../src/hermes/client/features.ts"

describe("feature cache", () => {
  it.effect("a waiter survives the interruption of the caller whose lookup it waited on", () =>
    Effect.gen(function* () {
      const lookups = yield* Ref.make(0)
      const firstStarted = yield* Deferred.make<void>()
      const cache = yield* makeFeatureCache(
        () =>
          Effect.flatMap(Ref.getAndUpdate(lookups, (n) => n + 1), (n) =>
            n === 0
              // The first lookup hangs until its caller gives up.
              ? Effect.zipRight(Deferred.succeed(firstStarted, undefined), Effect.never)
              : Effect.succeed({ ...noFeatures, runSteer: true })),
        "60 seconds"
      )
      const impatient = yield* Effect.fork(cache.get("default"))
      yield* Deferred.await(firstStarted)
      const patient = yield* Effect.fork(cache.get("default"))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(impatient)
      const got = yield* Fiber.join(patient).pipe(Effect.timeout("5 seconds"))
      expect(got.runSteer).toBe(true)
      expect(yield* Ref.get(lookups)).toBe(2)
    }))

  it.effect("a caller that is interrupted itself still ends (it does not start the lookup again)", () =>
    Effect.gen(function* () {
      const lookups = yield* Ref.make(0)
      const cache = yield* makeFeatureCache(() => Effect.zipRight(Ref.update(lookups, (n) => n + 1), Effect.never), "60 seconds")
      const caller = yield* Effect.fork(cache.get("default"))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(caller).pipe(Effect.timeout("5 seconds"))
      expect(yield* Ref.get(lookups)).toBe(1)
    }))

  it.effect("failures are not cached; successes are", () =>
    Effect.gen(function* () {
      const lookups = yield* Ref.make(0)
      const cache = yield* makeFeatureCache(
        () => Effect.flatMap(Ref.getAndUpdate(lookups, (n) => n + 1), (n) => (n === 0 ? Effect.fail("down" as const) : Effect.succeed(noFeatures))),
        "60 seconds"
      )
      expect(yield* Effect.flip(cache.get("default"))).toBe("down")
      yield* cache.get("default")
      yield* cache.get("default")
      expect(yield* Ref.get(lookups)).toBe(2)
    }))
})
