/**
 * The simulator embedded in the daemon: with no Hermes configured (or `hermes.url: sim`), a
 * simulated Hermes starts in-process on a free loopback port, serving the configured profile names
 * on one listener (`default` at `/`, others at `/p/<name>`) with a random key each, and the
 * daemon's profiles point at it. Otherwise nothing starts and the profiles come from the config.
 * `SimulatorInfo` tells the banner which it is.
 */
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { AppConfig } from "../config/AppConfig.ts"
import { type HermesProfile, namedProfile } from "./client/HermesClient.ts"
import { HermesProfiles, profilesFromConfig } from "./profiles.ts"
import { publishEmbedded, readEmbedded } from "./embeddedFile.ts"
import { type SimProfileInfo, type SimulatorHandle, startSimulator } from "./sim/server.ts"

export interface SimulatorInfoShape {
  /** The embedded simulator's base URL, or none when a real Hermes is configured. */
  readonly url: Option.Option<string>
  readonly handle: Option.Option<SimulatorHandle>
}

export class SimulatorInfo extends Context.Tag("agent-bridge/SimulatorInfo")<SimulatorInfo, SimulatorInfoShape>() {}

/** No simulator: a real Hermes is configured. */
export const SimulatorInfoNone = Layer.succeed(SimulatorInfo, { url: Option.none(), handle: Option.none() })

/** The daemon's profiles as served by a running simulator. */
export const simulatorProfiles = (sim: { readonly profiles: ReadonlyArray<SimProfileInfo> }): ReadonlyArray<HermesProfile> =>
  sim.profiles.map((p) => namedProfile(p.name, p.url, Option.some(Redacted.make(p.key))))

/**
 * `role: "daemon"` starts the simulator and publishes where it is (`embeddedFile.ts`);
 * `role: "tool"` (the CLI's inbox and doctor) uses the running daemon's published simulator when
 * there is one, and starts its own only when no daemon is running.
 */
const hermesEmbedded = (role: "daemon" | "tool") =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const config = yield* AppConfig
      if (!config.useSimulator) {
        const profiles = yield* profilesFromConfig(config)
        return Context.make(HermesProfiles, profiles).pipe(
          Context.add(SimulatorInfo, { url: Option.none(), handle: Option.none() })
        )
      }
      const running = role === "tool" ? readEmbedded(config.dataDir) : Option.none()
      if (Option.isSome(running)) {
        return Context.make(HermesProfiles, simulatorProfiles(running.value)).pipe(
          Context.add(SimulatorInfo, { url: Option.some(running.value.url), handle: Option.none() })
        )
      }
      const names = ["default", ...Object.keys(config.hermes.profiles).filter((n) => n !== "default")]
      const sim = yield* startSimulator({ host: "127.0.0.1", port: 0, multiplex: true, profiles: names.map((name) => ({ name })) })
      yield* Effect.logInfo(`Hermes simulator listening at ${sim.url} (no Hermes configured)`)
      if (role === "daemon") yield* publishEmbedded(config.dataDir, sim.url, sim.profiles)
      return Context.make(HermesProfiles, simulatorProfiles(sim)).pipe(
        Context.add(SimulatorInfo, { url: Option.some(sim.url), handle: Option.some(sim) })
      )
    })
  )

export const HermesEmbedded = hermesEmbedded("daemon")
export const HermesEmbeddedForTools = hermesEmbedded("tool")
