/**
 * The run service against the Hermes simulator over real loopback HTTP: the live HermesClient, the
 * real Inbox (SQLite), the real ledger, the default Redactor. `rebuild` plays a daemon restart over
 * the same database while the simulator keeps running.
 */
import { Context, Effect, Either, Exit, Layer, Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { AppConfigLive } from "../../../src/config/AppConfig.ts"
import { loadConfig } from "../../../src/config/load.ts"
import type { HermesClientOptions } from "../../../src/hermes/client/HermesClientLive.ts"
import type { SimOptions } from "../../../src/hermes/sim/options.ts"
import { SimulatedHermes, Simulator } from "../../../src/hermes/sim/layer.ts"
import { HermesClient } from "../../../src/hermes/client/HermesClient.ts"
import { Inbox } from "../../../src/services/inbox/Inbox.ts"
import { InboxServices } from "../../../src/daemon/teachServices.ts"
import { LifecycleReady } from "../../../src/common/Lifecycle.ts"
import { RedactorLive } from "../../../src/common/Redactor.ts"
import { LedgerLive } from "../../../src/services/runs/LedgerSql.ts"
import { makeRuns } from "../../../src/services/runs/RunsLive.ts"

export interface SimHarnessOptions {
  readonly sim?: SimOptions
  readonly client?: HermesClientOptions
  readonly maxRuns?: number
  /** `hermes.quiet_check_ms` (default 10 s). */
  readonly quietCheckMs?: number
}

export const simHarness = (options: SimHarnessOptions = {}) =>
  Effect.gen(function* () {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "runs-sim-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
    const loaded = loadConfig({
      env: {
        AGENT_BRIDGE_BRIDGE_DATA_DIR: path.join(dir, "data"),
        AGENT_BRIDGE_BRIDGE_MAX_CONCURRENT_RUNS_PER_CLIENT: String(options.maxRuns ?? 4),
        ...(options.quietCheckMs === undefined ? {} : { AGENT_BRIDGE_HERMES_QUIET_CHECK_MS: String(options.quietCheckMs) })
      },
      cwd: dir
    })
    if (Either.isLeft(loaded)) return yield* Effect.dieMessage(loaded.left.message)
    const config = AppConfigLive(loaded.right)

    const simScope = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(simScope, Exit.void))
    const hermesContext = yield* Layer.buildWithScope(
      SimulatedHermes(options.sim ?? {}, { pollInterval: "50 millis", ...options.client }),
      simScope
    )
    const sim = Context.get(hermesContext, Simulator)
    const hermes = Context.get(hermesContext, HermesClient)

    const build = (scope: Scope.Scope) =>
      Effect.gen(function* () {
        const base = Layer.mergeAll(config, RedactorLive, LifecycleReady, Layer.succeed(HermesClient, hermes))
        const deps = Layer.mergeAll(LedgerLive, InboxServices).pipe(Layer.provideMerge(base))
        const context = yield* Layer.buildWithScope(deps, scope)
        const made = yield* makeRuns.pipe(Effect.provide(context), Scope.extend(scope))
        return { ...made, inbox: Context.get(context, Inbox) }
      })

    let scope = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    const first = yield* build(scope)
    return {
      ...first,
      sim,
      hermes,
      /** Shuts the run service down and builds a new one over the same database. */
      rebuild: Effect.gen(function* () {
        yield* Scope.close(scope, Exit.void)
        scope = yield* Scope.make()
        return yield* build(scope)
      }),
      /** `rebuild`, with `whileDown` run while no run service is up (Hermes goes on meanwhile). */
      rebuildAfter: <A, E, R>(whileDown: Effect.Effect<A, E, R>) =>
        Effect.gen(function* () {
          yield* Scope.close(scope, Exit.void)
          yield* whileDown
          scope = yield* Scope.make()
          return yield* build(scope)
        })
    }
  })
