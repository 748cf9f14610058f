/** Runs `agent-bridge inbox …` against the daemon's database, with a Hermes client for run approvals. */
import { Effect, Layer } from "effect"
import type { ResolvedConfig } from "../config/load.ts"
import { causeLine } from "../daemon/startFailure.ts"
import { HermesClientForTools } from "../hermes/client/HermesClientLive.ts"
import { InboxServices } from "../daemon/teachServices.ts"
import type { ParsedArgs } from "./args.ts"
import { inboxMain } from "./inbox.ts"
import { cliLoggingLayer, storageLayer } from "./runtime.ts"

export const inboxCommandLine = (config: ResolvedConfig, args: ParsedArgs): Promise<number> =>
  Effect.runPromise(
    inboxMain(args).pipe(
      Effect.provide(InboxServices.pipe(Layer.provideMerge(HermesClientForTools), Layer.provideMerge(storageLayer(config)), Layer.provide(cliLoggingLayer))),
      Effect.scoped,
      Effect.catchAllCause((cause) => Effect.sync(() => {
        console.error(causeLine(cause, { what: "inbox", dataDir: config.dataDir }))
        return 1
      }))
    )
  )
