/**
 * The run service over a fault-injecting ledger (LedgerFaulty.ts) on a real SQLite file, the real
 * inbox, the default Redactor and the live HermesClient talking to the simulator over loopback.
 * Tool calls go through the edge's own `runTool`, so the answers are exactly the `CallToolResult`s
 * a client would get (`bridge.*` codes, incidents for internal failures).
 */
import { SqlClient } from "@effect/sql"
import { Context, Effect, Either, Exit, Layer, Logger, Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { AppConfigLive } from "../../../src/config/AppConfig.ts"
import { loadConfig } from "../../../src/config/load.ts"
import { runTool } from "../../../src/edge/mcp/runTool.ts"
import type { ToolDef } from "../../../src/edge/mcp/ToolDef.ts"
import { agentTools } from "../../../src/edge/mcp/agent-tools/index.ts"
import { HermesClient } from "../../../src/hermes/client/HermesClient.ts"
import { SimulatedHermes, Simulator } from "../../../src/hermes/sim/layer.ts"
import type { SimOptions } from "../../../src/hermes/sim/options.ts"
import { Caller } from "../../../src/request/Caller.ts"
import { InboxServices } from "../../../src/daemon/teachServices.ts"
import { LifecycleReady } from "../../../src/common/Lifecycle.ts"
import { RedactorLive } from "../../../src/common/Redactor.ts"
import { Runs } from "../../../src/services/runs/Runs.ts"
import { makeRuns } from "../../../src/services/runs/RunsLive.ts"
import { DB_FILE, DbLive } from "../../../src/storage/Db.ts"
import { LedgerFaulty, makeFaultControl } from "../../../src/services/runs/LedgerFaulty.ts"
import type { ToolOutcome } from "./mcpClient.ts"

const ERROR_META_KEY = "agent-bridge/error"

export const storageHarness = (sim: SimOptions = {}) =>
  Effect.gen(function* () {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-bridge-storage-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
    const loaded = loadConfig({
      env: {
        AGENT_BRIDGE_BRIDGE_DATA_DIR: path.join(dir, "data"),
        AGENT_BRIDGE_BRIDGE_MAX_CONCURRENT_RUNS_PER_CLIENT: "20",
        // The simulator's cap below: the bridge's queue must not stand in front of it here.
        AGENT_BRIDGE_HERMES_MAX_CONCURRENT_RUNS: String(sim.maxConcurrentRuns ?? 100)
      },
      cwd: dir
    })
    if (Either.isLeft(loaded)) return yield* Effect.dieMessage(loaded.left.message)
    const dataDir = loaded.right.dataDir

    const hermesContext = yield* Layer.build(SimulatedHermes({ maxConcurrentRuns: 100, ...sim }, { pollInterval: "50 millis" }))
    const simulator = Context.get(hermesContext, Simulator)
    const hermes = Context.get(hermesContext, HermesClient)

    const faults = makeFaultControl()
    const base = Layer.mergeAll(AppConfigLive(loaded.right), RedactorLive, LifecycleReady, Layer.succeed(HermesClient, hermes))
    const deps = Layer.mergeAll(LedgerFaulty(faults), InboxServices).pipe(Layer.provideMerge(base), Layer.provideMerge(DbLive(dataDir)))
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    const context = yield* Layer.buildWithScope(deps, scope)
    /**
     * What the edge and the run service logged (logfmt lines): details the caller never sees. The
     * service is built under the same logger, as the daemon's is under its own: a run's follower
     * logs through the runtime the service was built with, not through the call that started it.
     */
    const logs: Array<string> = []
    const captureLogs = Logger.replace(Logger.defaultLogger, Logger.make((o) => void logs.push(Logger.logfmtLogger.log(o))))
    const made = yield* makeRuns.pipe(Effect.provide(context), Effect.provide(captureLogs), Scope.extend(scope))
    const sql = Context.get(context, SqlClient.SqlClient)

    /** One tool call as the edge runs it, for `client`. */
    const call = (tool: string, args: Record<string, unknown>, client = "alice"): Effect.Effect<ToolOutcome> => {
      const def = agentTools.find((t) => t.name === tool) as ToolDef<any, any, any> | undefined
      if (def === undefined) return Effect.dieMessage(`no tool ${tool}`)
      const caller = client === "admin" ? Caller.admin : Caller.client(client)
      return runTool(def, args, caller, { enabled: false, report: () => Effect.void }).pipe(
        Effect.provideService(Runs, made.runs),
        Effect.provide(captureLogs),
        Effect.map((result): ToolOutcome => {
          const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("")
          if (result.isError !== true) return { ok: true, value: result.structuredContent }
          const code = (result._meta?.[ERROR_META_KEY] as { code?: string } | undefined)?.code ?? "unknown"
          return { ok: false, code, text }
        })
      ) as Effect.Effect<ToolOutcome>
    }

    return { call, logs, faults: faults.control, sim: simulator, hermes, sql, supervisor: made.supervisor, dbFile: path.join(dataDir, DB_FILE) }
  })
