/**
 * `HermesClientTest`: a scripted `HermesClient` for edge tests that do not need a real Hermes: fixed
 * profiles, health and model answers, failing as the real client does (with the adapter's errors);
 * it records nothing, and any other call is a defect. Run tests use `fakeHermes.ts` (scripted runs,
 * records calls) or the simulator instead.
 */
import { Effect, Layer, Option, Redacted, Stream } from "effect"
import { HermesTransport } from "./failure.ts"
import { findProfile, HermesClient, type HermesClientShape, type HermesProfile, namedProfile } from "./HermesClient.ts"

export interface DoubleOptions {
  readonly profiles?: ReadonlyArray<{ readonly name: string; readonly keyed?: boolean; readonly up?: boolean; readonly version?: string | null }>
}

export const HermesClientTest = (options: DoubleOptions = {}) => {
  const specs = options.profiles ?? [{ name: "default" }]
  const profiles: ReadonlyArray<HermesProfile> = specs.map((s) =>
    namedProfile(s.name, `http://127.0.0.1:9/${s.name}`, s.keyed === false ? Option.none() : Option.some(Redacted.make(`double-key-${s.name}`)))
  )
  const spec = (p: HermesProfile) => specs.find((s) => s.name === p.name)!
  const down = (p: HermesProfile, route: string) => new HermesTransport({ agent: p.agent, route, detail: "ECONNREFUSED" })
  const unused = () => Effect.dieMessage("not scripted in this double")
  const shape: HermesClientShape = {
    profiles,
    profile: (agent) => findProfile(profiles, agent),
    health: (p) => (spec(p).up === false ? Effect.fail(down(p, "GET /health")) : Effect.succeed({ status: "ok", version: spec(p).version ?? "0.20.4" })),
    models: (p) => (spec(p).up === false ? Effect.fail(down(p, "GET /v1/models")) : Effect.succeed([p.name === "default" ? "hermes-agent" : p.name])),
    features: unused,
    start: unused,
    status: unused,
    events: () => Stream.die("not scripted"),
    follow: () => Stream.die("not scripted"),
    approval: unused,
    steer: unused,
    stop: unused,
    clarify: unused
  }
  return Layer.succeed(HermesClient, shape)
}
