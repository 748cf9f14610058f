/**
 * The simulator for tests and tools, in the shapes they want: as a Layer (`SimulatedHermes`:
 * a simulator plus a HermesClient pointed at it), or as a plain Promise API
 * (`startSimulatorAsync`) for code outside Effect. Both stop the simulator when released.
 */
import { Context, Effect, Exit, Layer, Option, Scope } from "effect"
import { simulatorProfiles } from "../embedded.ts"
import { HermesClient } from "../client/HermesClient.ts"
import { HermesClientWith, type HermesClientOptions } from "../client/HermesClientLive.ts"
import { HermesProfiles, HermesProfilesWith } from "../profiles.ts"
import type { SimOptions } from "./options.ts"
import type { SimRun } from "./run.ts"
import { type SimServeError, type SimulatorHandle, startSimulator } from "./server.ts"
import type { SimRoute } from "./handlers.ts"
import type { RecordedRequest, SimFault } from "./state.ts"

/** The running simulator's handle, as a service. */
export class Simulator extends Context.Tag("agent-bridge/Simulator")<Simulator, SimulatorHandle>() {}

/** A simulator alone. */
export const SimulatorLive = (options: SimOptions = {}): Layer.Layer<Simulator, SimServeError> =>
  Layer.scoped(Simulator, startSimulator(options))

/**
 * A simulator and everything needed to talk to it: `Simulator` (the handle), `HermesProfiles`
 * (agents `hermes` and `hermes/<name>` at the simulator's URLs with its keys) and a `HermesClient`.
 */
export const SimulatedHermes = (
  options: SimOptions = {},
  client: HermesClientOptions = {}
): Layer.Layer<Simulator | HermesProfiles | HermesClient, SimServeError> =>
  Layer.unwrapEffect(
    Effect.map(Simulator, (sim) => {
      const profiles = simulatorProfiles(sim)
      return Layer.merge(HermesProfilesWith(profiles), HermesClientWith(profiles, client))
    })
  ).pipe(Layer.provideMerge(SimulatorLive(options)))

/** The handle with Promises instead of Effects, for callers outside Effect. */
export interface SimulatorAsync {
  readonly url: string
  readonly port: number
  readonly profiles: SimulatorHandle["profiles"]
  readonly profile: SimulatorHandle["profile"]
  readonly handle: SimulatorHandle
  readonly stop: () => Promise<void>
  readonly start: () => Promise<void>
  readonly restart: (options?: { readonly loseRuns?: boolean; readonly downMs?: number }) => Promise<void>
  readonly setDraining: (draining: boolean) => Promise<void>
  readonly injectFault: (fault: SimFault<SimRoute>) => Promise<void>
  readonly clearFaults: () => Promise<void>
  readonly requests: () => Promise<ReadonlyArray<RecordedRequest>>
  readonly findRun: (runId: string) => Promise<SimRun | undefined>
  /** Stops the simulator for good. */
  readonly close: () => Promise<void>
}

export const startSimulatorAsync = async (options: SimOptions = {}): Promise<SimulatorAsync> => {
  const scope = Effect.runSync(Scope.make())
  const exit = await Effect.runPromiseExit(startSimulator(options).pipe(Scope.extend(scope)))
  if (Exit.isFailure(exit)) {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    throw new Error(`the simulator did not start: ${String(exit.cause)}`)
  }
  const h = exit.value
  const run = <A, E>(eff: Effect.Effect<A, E>) => Effect.runPromise(eff)
  return {
    url: h.url,
    port: h.port,
    profiles: h.profiles,
    profile: h.profile,
    handle: h,
    stop: () => run(h.stop),
    start: () => run(h.start),
    restart: (o) => run(h.restart(o)),
    setDraining: (d) => run(h.setDraining(d)),
    injectFault: (f) => run(h.injectFault(f)),
    clearFaults: () => run(h.clearFaults),
    requests: () => run(h.requests),
    findRun: (id) => run(h.findRun(id).pipe(Effect.map(Option.getOrUndefined))),
    close: () => run(Scope.close(scope, Exit.void))
  }
}
