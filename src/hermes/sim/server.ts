/**
 * A simulated Hermes process: its listeners (one multiplexed listener, or one per profile), its
 * memory (`SimState`) and the executors of its runs. The handle lets tests take the listeners down
 * and up again on the same ports (an outage), restart the process (losing in-memory runs), drain,
 * inject faults, and look at what it received.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Data, Effect, Exit, FiberSet, Option, Scope } from "effect"
import * as http from "node:http"
import { type ListenerSpec, makeApp } from "./app.ts"
import { executeRun } from "./executor.ts"
import { resolveSimOptions, type ResolvedSimOptions, type SimOptions } from "./options.ts"
import type { SimRun } from "./run.ts"
import type { Plan } from "./script.ts"
import type { SimRoute } from "./handlers.ts"
import { type RecordedRequest, type SimFault, SimState } from "./state.ts"

export class SimServeError extends Data.TaggedError("SimServeError")<{ readonly message: string }> {}

export interface SimProfileInfo {
  readonly name: string
  readonly key: string
  /** The profile's base URL (`<listener>` for `default`, `<listener>/p/<name>` when multiplexed). */
  readonly url: string
}

export interface SimulatorHandle {
  /** Base URL of the first listener (the `default` profile's URL when there is one). */
  readonly url: string
  readonly port: number
  readonly profiles: ReadonlyArray<SimProfileInfo>
  /** One profile's URL and key; throws for a name the simulator does not serve. */
  readonly profile: (name: string) => SimProfileInfo
  readonly options: ResolvedSimOptions
  /** The simulated process's memory (runs, requests), for assertions. */
  readonly state: SimState
  /** Listeners down (connections cut); runs go on, as in a network outage. */
  readonly stop: Effect.Effect<void>
  /** Listeners up again on the same ports. */
  readonly start: Effect.Effect<void, SimServeError>
  /**
   * A Hermes restart: listeners down, every executor killed, then up after `downMs`. Older builds
   * (or `loseRuns: true`) forget every run; newer builds keep statuses, unsettled runs `interrupted`.
   */
  readonly restart: (options?: { readonly loseRuns?: boolean; readonly downMs?: number }) => Effect.Effect<void, SimServeError>
  /** While draining, starts answer 503 `gateway_draining` with `Retry-After: 1`. */
  readonly setDraining: (draining: boolean) => Effect.Effect<void>
  readonly injectFault: (fault: SimFault<SimRoute>) => Effect.Effect<void>
  readonly clearFaults: Effect.Effect<void>
  readonly requests: Effect.Effect<ReadonlyArray<RecordedRequest>>
  readonly findRun: (runId: string) => Effect.Effect<Option.Option<SimRun>>
  readonly isUp: Effect.Effect<boolean>
}

interface OpenListener {
  readonly scope: Scope.CloseableScope
}

const listenerSpecs = (o: ResolvedSimOptions): ReadonlyArray<ListenerSpec> => {
  const names = o.profiles.map((p) => p.name)
  if (o.multiplex) return [{ served: names, root: names.includes("default") ? "default" : null, multiplex: true }]
  return names.map((name) => ({ served: [name], root: name, multiplex: false }))
}

/** Starts a simulated Hermes; it stops when the scope closes. */
export const startSimulator = (options: SimOptions = {}): Effect.Effect<SimulatorHandle, SimServeError, Scope.Scope> =>
  Effect.gen(function* () {
    const resolved = yield* Effect.try({
      try: () => resolveSimOptions(options),
      catch: (e) => new SimServeError({ message: (e as Error).message })
    })
    const state = new SimState(resolved)
    const executors = yield* FiberSet.make()
    const lock = yield* Effect.makeSemaphore(1)
    const specs = listenerSpecs(resolved)
    const ports: Array<number> = specs.map((_, i) => (i === 0 ? resolved.port : 0))
    let open: Array<OpenListener> = []
    let disposed = false

    const openOne = (spec: ListenerSpec, index: number) =>
      Effect.gen(function* () {
        const scope = yield* Scope.make()
        const server = http.createServer()
        server.keepAliveTimeout = 1000
        const started = yield* Effect.gen(function* () {
          const httpServer = yield* NodeHttpServer.make(() => server, { port: ports[index] ?? 0, host: resolved.host })
          // Runs before the server's own close, which would otherwise wait for open streams.
          yield* Effect.addFinalizer(() => Effect.sync(() => server.closeAllConnections()))
          yield* httpServer.serve(makeApp({ state, spawn }, spec))
          return httpServer.address
        }).pipe(Scope.extend(scope), Effect.exit)
        if (Exit.isFailure(started)) {
          yield* Scope.close(scope, Exit.void)
          return yield* new SimServeError({ message: `simulator cannot listen on ${resolved.host}:${ports[index]}` })
        }
        const address = started.value
        if (address._tag === "TcpAddress") ports[index] = address.port
        return { scope }
      })

    const openAll = Effect.gen(function* () {
      if (open.length > 0 || disposed) return
      const opened: Array<OpenListener> = []
      for (const [i, spec] of specs.entries()) {
        const one = yield* openOne(spec, i).pipe(
          Effect.tapError(() => Effect.forEach(opened, (l) => Scope.close(l.scope, Exit.void)))
        )
        opened.push(one)
      }
      open = opened
    })

    const closeAll = Effect.suspend(() => {
      const closing = open
      open = []
      return Effect.forEach(closing, (l) => Scope.close(l.scope, Exit.void), { discard: true })
    })

    const restart = (o: { readonly loseRuns?: boolean; readonly downMs?: number } = {}) =>
      lock.withPermits(1)(Effect.gen(function* () {
        yield* closeAll
        yield* FiberSet.clear(executors)
        state.afterRestart(o.loseRuns ?? false)
        state.draining = false
        yield* Effect.sleep(o.downMs ?? resolved.restartDownMs)
        yield* openAll
      }))

    function spawn(run: SimRun, plan: Plan): Effect.Effect<void> {
      const restartFromRun = restart().pipe(Effect.catchAll((e) => Effect.logWarning(`simulator restart failed: ${e.message}`)))
      const work = executeRun({ state, restart: restartFromRun }, run, plan).pipe(
        Effect.catchAllDefect((defect) => Effect.logError("simulator run executor died", defect))
      )
      // Request handlers run uninterruptibly and forked fibers inherit that: without this, an
      // executor could never be stopped by a restart, nor lose a race against a timeout.
      return FiberSet.run(executors, Effect.interruptible(work)).pipe(Effect.asVoid)
    }

    yield* lock.withPermits(1)(openAll)
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        disposed = true
        return lock.withPermits(1)(closeAll)
      })
    )

    const base = (i: number) => `http://${resolved.host}:${ports[i]}`
    const profiles: ReadonlyArray<SimProfileInfo> = resolved.profiles.map((p, i) => ({
      name: p.name,
      key: p.key,
      url: resolved.multiplex ? (p.name === "default" ? base(0) : `${base(0)}/p/${p.name}`) : base(i)
    }))
    const handle: SimulatorHandle = {
      url: profiles.find((p) => p.name === "default")?.url ?? base(0),
      port: ports[0] ?? 0,
      profiles,
      profile: (name) => {
        const p = profiles.find((x) => x.name === name)
        if (p === undefined) throw new Error(`the simulator serves no profile '${name}'`)
        return p
      },
      options: resolved,
      state,
      stop: lock.withPermits(1)(closeAll),
      start: lock.withPermits(1)(openAll),
      restart,
      setDraining: (draining) => Effect.sync(() => { state.draining = draining }),
      injectFault: (fault) => Effect.sync(() => state.addFault(fault)),
      clearFaults: Effect.sync(() => state.clearFaults()),
      requests: Effect.sync(() => [...state.requests]),
      findRun: (runId) => Effect.sync(() => Option.fromNullable(state.runs.get(runId))),
      isUp: Effect.sync(() => open.length > 0)
    }
    return handle
  })
