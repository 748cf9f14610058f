/**
 * The simulator embedded in the daemon: with no Hermes configured (or `hermes.url: sim`), a
 * simulated Hermes starts in-process on a free loopback port, serving the configured profile names
 * on one listener (`default` at `/`, others at `/p/<name>`) with a random key each, and the
 * daemon's profiles point at it. Otherwise nothing starts and the profiles come from the config.
 * `SimulatorInfo` tells the banner which it is.
 */
import { Context, Effect, ExecutionStrategy, Exit, Layer, Option, Redacted, Scope } from "effect"
import { AppConfig } from "../config/AppConfig.ts"
import { type HermesProfile, namedProfile } from "./client/HermesClient.ts"
import { HermesProfiles, profilesFromConfig } from "./profiles.ts"
import { publishEmbedded, readEmbedded } from "./embeddedFile.ts"
import { type SimProfileInfo, type SimulatorHandle, SimServeError, startSimulator } from "./sim/server.ts"

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

/** How often `apartFrom` starts again before it gives up. */
const APART_TRIES = 5

/**
 * `start` (a listener on port 0) until the port it got is not `avoid`: the port the daemon is about
 * to listen on itself, which it binds only after its layers (this one among them) are built. The
 * OS hands out a port that was just released first, and a launcher that probed a free port for the
 * daemon released exactly that one (a benchmark's daemon failed with EADDRINUSE on the port its own
 * simulator had taken). A listener on the avoided port is closed before the next try.
 */
export const apartFrom = <A, E, R>(
  avoid: number,
  start: Effect.Effect<A, E, R | Scope.Scope>,
  portOf: (a: A) => number
): Effect.Effect<A, E | SimServeError, Exclude<R, Scope.Scope> | Scope.Scope> =>
  Effect.gen(function* () {
    const outer = yield* Effect.scope
    for (let attempt = 0; attempt < APART_TRIES; attempt++) {
      const scope = yield* Scope.fork(outer, ExecutionStrategy.sequential)
      const got = yield* Scope.extend(start, scope)
      if (avoid === 0 || portOf(got) !== avoid) return got
      yield* Scope.close(scope, Exit.void)
    }
    return yield* new SimServeError({ message: `the simulator got port ${avoid}, the daemon's own, ${APART_TRIES} times in a row` })
  })

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
      const sim = yield* apartFrom(
        config.bridge.port,
        startSimulator({ host: "127.0.0.1", port: 0, multiplex: true, profiles: names.map((name) => ({ name })) }),
        (started) => Number(new URL(started.url).port)
      )
      yield* Effect.logInfo(`Hermes simulator listening at ${sim.url} (no Hermes configured)`)
      if (role === "daemon") yield* publishEmbedded(config.dataDir, sim.url, sim.profiles)
      return Context.make(HermesProfiles, simulatorProfiles(sim)).pipe(
        Context.add(SimulatorInfo, { url: Option.some(sim.url), handle: Option.some(sim) })
      )
    })
  )

export const HermesEmbedded = hermesEmbedded("daemon")
export const HermesEmbeddedForTools = hermesEmbedded("tool")
