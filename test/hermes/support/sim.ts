/** Shared helpers for tests that drive a HermesClient against the simulator. */
import { Chunk, Effect, Option, Redacted, Stream } from "effect"
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
