/**
 * `HermesClientTest`: a scripted `HermesClient` for edge tests that do not need a real Hermes: fixed
 * profiles, health, model and features answers, failing as the real client does (with the adapter's errors);
 * it records nothing, and any other call is a defect naming it (`common/unscripted.ts`). Run tests use `fakeHermes.ts` (scripted runs,
 * records calls) or the simulator instead.
 */
import { Effect, Layer, Option, Redacted } from "effect"
import { unscripted } from "../../common/unscripted.ts"
import { HermesTransport } from "./failure.ts"
import { parseFeatures } from "./features.ts"
import { findProfile, HermesClient, type HermesClientShape, type HermesFeatures, type HermesProfile, namedProfile } from "./HermesClient.ts"

export interface DoubleOptions {
  readonly profiles?: ReadonlyArray<{
    readonly name: string
    readonly keyed?: boolean
    readonly up?: boolean
    readonly version?: string | null
    /** Its features; default those of Hermes 0.20 (no steer, no idempotency, replay not seen yet). */
    readonly features?: HermesFeatures
  }>
}

/** The capabilities Hermes 0.20 answers, as the client reads them. */
const HERMES_020 = parseFeatures({
  features: { run_submission: true, run_status: true, run_events_sse: true, run_stop: true, run_approval_response: true, session_key_header: "X-Hermes-Session-Key" }
})

export const HermesClientTest = (options: DoubleOptions = {}) => {
  const specs = options.profiles ?? [{ name: "default" }]
  const profiles: ReadonlyArray<HermesProfile> = specs.map((s) =>
    namedProfile(s.name, `http://127.0.0.1:9/${s.name}`, s.keyed === false ? Option.none() : Option.some(Redacted.make(`double-key-${s.name}`)))
  )
  const spec = (p: HermesProfile) => specs.find((s) => s.name === p.name)!
  const down = (p: HermesProfile, route: string) => new HermesTransport({ agent: p.agent, route, detail: "ECONNREFUSED" })
  const shape = unscripted<HermesClientShape>("HermesClient", "this HermesClientTest")({
    profiles,
    profile: (agent) => findProfile(profiles, agent),
    health: (p) => (spec(p).up === false ? Effect.fail(down(p, "GET /health")) : Effect.succeed({ status: "ok", version: spec(p).version ?? "0.20.4" })),
    models: (p) => (spec(p).up === false ? Effect.fail(down(p, "GET /v1/models")) : Effect.succeed([p.name === "default" ? "hermes-agent" : p.name])),
    features: (p) => (spec(p).up === false ? Effect.fail(down(p, "GET /v1/capabilities")) : Effect.succeed(spec(p).features ?? HERMES_020))
  })
  return Layer.succeed(HermesClient, shape)
}
