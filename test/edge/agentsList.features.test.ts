/**
 * `agents_list` says which optional Hermes features each profile has: `hermes_features` (false:
 * the profile lacks it; null: not known yet), read from `HermesClient.features`, the detection
 * the client itself acts on; null for a profile whose capabilities could not be read.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HermesClientTest } from "../../src/hermes/client/HermesClientTest.ts"
import { SimulatedHermes } from "../../src/hermes/sim/layer.ts"
import { Agents, AgentsLive } from "../../src/services/agents/Agents.ts"

const rowsOf = Effect.map(Agents.list, (l) => l.agents)

for (const generation of ["old", "new"] as const) {
  describe(`agents_list's hermes_features (${generation} build)`, () => {
    const stack = AgentsLive.pipe(Layer.provideMerge(SimulatedHermes({ generation }, { timeout: "2 seconds" })))
    layer(stack, { excludeTestServices: true })((it) => {
      it.effect("steer and durable idempotency from the capabilities; event replay not known before a stream was read", () =>
        Effect.gen(function* () {
          const [row] = yield* rowsOf
          expect(row).toMatchObject({
            name: "hermes", health: "ok",
            hermes_features: { steer: generation === "new", event_replay: null, durable_idempotency: generation === "new" }
          })
        }))
    })
  })
}

describe("agents_list's hermes_features without capabilities", () => {
  layer(AgentsLive.pipe(Layer.provideMerge(HermesClientTest({ profiles: [{ name: "default", up: false }, { name: "nokey", keyed: false }] }))))((it) => {
    it.effect("null for a profile that is down or that the bridge holds no key for", () =>
      Effect.gen(function* () {
        const rows = yield* rowsOf
        expect(rows.slice(0, 2).map((r) => ("hermes_features" in r ? r.hermes_features : "absent"))).toEqual([null, null])
      }))
  })
})
