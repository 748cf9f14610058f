/** Shared helpers for tests that drive a HermesClient against the simulator. */
import { Chunk, Effect, Fiber, Option, Redacted, Ref, Stream } from "effect"
import { HermesClient, type HermesEvent, type HermesProfile } from "../../../src/hermes/client/HermesClient.ts"
import { Simulator } from "../../../src/hermes/sim/layer.ts"

export const clientAndSim = Effect.all({ hermes: HermesClient, sim: Simulator })

/** The default profile of the client under test. */
export const defaultProfile = Effect.flatMap(HermesClient, (h) => h.profile("hermes"))

/** A copy of a profile with another key (or none). */
export const withKey = (p: HermesProfile, key: string | null): HermesProfile => ({
  ...p,
  key: key === null ? Option.none() : Option.some(Redacted.make(key))
})

export const collect = <E, R>(s: Stream.Stream<HermesEvent, E, R>) => Stream.runCollect(s).pipe(Effect.map(Chunk.toReadonlyArray))

export const deltasOf = (events: ReadonlyArray<HermesEvent>) =>
  events.filter((e) => e.event === "message.delta").map((e) => String(e.data.delta)).join("")

/** Polls the simulator until the run reaches `status`. */
export const simStatus = (runId: string, status: string) =>
  Effect.gen(function* () {
    const sim = yield* Simulator
    for (;;) {
      const run = sim.state.runs.get(runId)
      if (run?.status === status) return run
      yield* Effect.sleep("5 millis")
    }
  }).pipe(Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error(`run ${runId} never reached ${status}`) }))

/** Waits until the client has asked for the run's status `times` more times from now (it is polling). */
export const polledAgain = (runId: string, times: number) =>
  Effect.gen(function* () {
    const sim = yield* Simulator
    const polls = Effect.map(sim.requests, (reqs) => reqs.filter((r) => r.path === `/v1/runs/${runId}`).length)
    const from = yield* polls
    for (;;) {
      if ((yield* polls) >= from + times) return
      yield* Effect.sleep("5 millis")
    }
  }).pipe(Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error(`the client did not ask for run ${runId}'s status ${times} more times`) }))

/**
 * Follows in the background, keeping what arrived, so a test can act once a given event came
 * (e.g. answer a request only after the follower announced it).
 */
export const followInBackground = <E, R>(s: Stream.Stream<HermesEvent, E, R>) =>
  Effect.gen(function* () {
    const seen = yield* Ref.make<ReadonlyArray<HermesEvent>>([])
    const fiber = yield* Effect.fork(Stream.runForEach(s, (e) => Ref.update(seen, (all) => [...all, e])))
    const waitFor = (predicate: (e: HermesEvent) => boolean) =>
      Effect.gen(function* () {
        for (;;) {
          const found = (yield* Ref.get(seen)).find(predicate)
          if (found !== undefined) return found
          yield* Effect.sleep("5 millis")
        }
      }).pipe(Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("the follower never sent the awaited event") }))
    const done = Effect.zipRight(Fiber.join(fiber), Ref.get(seen))
    return { waitFor, done, seen: Ref.get(seen) }
  })
