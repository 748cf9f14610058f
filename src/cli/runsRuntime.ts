/** Runs `agent-bridge runs …` against the daemon's database (the inbox's stack, for approvals shown on a run). */
import { Effect, Layer } from "effect"
import type { ResolvedConfig } from "../config/load.ts"
import { HermesClientForTools } from "../hermes/client/HermesClientLive.ts"
import { OperatorStopsRecording } from "../services/console/OperatorStops.ts"
import { StopRequestsLive } from "../services/console/stopRequests.ts"
import { ClientsLive } from "../services/auth/Clients.ts"
import { InboxServices } from "../daemon/teachServices.ts"
import { LedgerLive } from "../services/runs/LedgerSql.ts"
import type { ParsedArgs } from "./args.ts"
import { runsMain } from "./runs.ts"
import { ReplicasFor } from "../services/replicas/ReplicasFor.ts"
import { cliLoggingLayer, storageLayer } from "./runtime.ts"

/** What `runs` needs: the stores, the inbox, Hermes for tools, and the Redactor with the config's secrets. */
export const runsLayer = (config: ResolvedConfig) =>
  OperatorStopsRecording.pipe(
    Layer.provideMerge(Layer.mergeAll(LedgerLive, StopRequestsLive, ClientsLive, ReplicasFor(config, false))),
    Layer.provideMerge(InboxServices),
    Layer.provideMerge(HermesClientForTools),
    Layer.provideMerge(storageLayer(config)),
    Layer.provide(cliLoggingLayer)
  )

export const runsCommandLine = (config: ResolvedConfig, args: ParsedArgs): Promise<number> =>
  Effect.runPromise(
    runsMain(args).pipe(
      Effect.provide(runsLayer(config)),
      Effect.scoped,
      Effect.catchAllCause((cause) => Effect.sync(() => {
        console.error(`runs: ${String(cause).split("\n")[0]}`)
        return 1
      }))
    )
  )
