/**
 * The optional Hermes features the bridge reports per profile (doctor, agents_list): steer and
 * durable idempotency from the capabilities, event replay from the client's own reading of the
 * profile's streams (frames numbered with `id:`; capabilities do not advertise it). One source:
 * `HermesClient.features`, which the client's operations read too.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { optionalFeatures, parseFeatures } from "../../src/hermes/client/features.ts"
import { SimulatedHermes } from "../../src/hermes/sim/layer.ts"
import { clientAndSim, collect, defaultProfile } from "./support/sim.ts"

describe("optionalFeatures", () => {
  it("Hermes 0.19/0.20's capabilities: no steer, no idempotency; event replay not known from them", () => {
    const f = parseFeatures({ features: { run_submission: true, run_events_sse: true, run_stop: true } })
    expect(optionalFeatures(f)).toEqual({ steer: false, event_replay: null, durable_idempotency: false })
  })

  it("a newer build: steer, durable idempotency; supported but not durable counts as lacking", () => {
    const durable = parseFeatures({ features: { run_steer: true, runs_idempotency: { supported: true, durable: true, retention_seconds: 86400 } } })
    expect(optionalFeatures(durable)).toMatchObject({ steer: true, durable_idempotency: true })
    const inMemory = parseFeatures({ features: { runs_idempotency: { supported: true, durable: false } } })
    expect(optionalFeatures(inMemory).durable_idempotency).toBe(false)
    expect(optionalFeatures({ ...durable, eventReplay: true }).event_replay).toBe(true)
  })
})

for (const generation of ["old", "new"] as const) {
  describe(`HermesClient.features, event replay (${generation} build)`, () => {
    layer(SimulatedHermes({ generation }, { timeout: "2 seconds", pollInterval: "50 millis" }), { excludeTestServices: true })((it) => {
      it.effect("not known before a stream of the profile was read; then what its frames showed", () =>
        Effect.gen(function* () {
          const { hermes } = yield* clientAndSim
          const p = yield* defaultProfile
          expect((yield* hermes.features(p)).eventReplay).toBeNull()
          const started = yield* hermes.start(p, { input: "hello" })
          const events = yield* collect(hermes.follow(p, started.hermesRunId))
          expect(events.at(-1)?.event).toBe("run.completed")
          const after = yield* hermes.features(p)
          expect(after.eventReplay).toBe(generation === "new")
          expect(optionalFeatures(after)).toEqual({
            steer: generation === "new", event_replay: generation === "new", durable_idempotency: generation === "new"
          })
        }))
    })
  })
}
