/**
 * `agent-bridge serve` (and `npm start`): run the daemon until SIGTERM/SIGINT, then drain and exit 0.
 * With no Hermes configured, the built-in simulator runs in-process and the banner says so. The banner
 * and a failed start's line follow `bridge.log_format` like every log line (`banner.ts`).
 */
import { HttpServer } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { Cause, Console, Effect, Layer, Option, Runtime } from "effect"
import type { ResolvedConfig } from "../config/load.ts"
import { bannerFields, printBanner, printStartFailure } from "./banner.ts"
import { daemonLayer } from "../daemon/Daemon.ts"
import { causeLine } from "../daemon/startFailure.ts"
import { SimulatorInfo } from "../hermes/embedded.ts"
import { logLevelOf, loggingLayer } from "../daemon/logging.ts"
import { StrayRejectionsLogged } from "../daemon/strayRejections.ts"
import { HeapSlackBounded } from "../daemon/heapSlack.ts"
import { RedactorLive } from "../common/Redactor.ts"

const banner = (config: ResolvedConfig, simulatorUrl: string | null) =>
  HttpServer.addressFormattedWith((address) => printBanner(config.bridge.log_format, bannerFields(config, address, simulatorUrl)))

/**
 * Shutdown's deadline. Built after the daemon, so released first: when shutdown starts, a timer of
 * `bridge.shutdown_timeout_s` begins; should the daemon's finalizers still wait when it fires (the
 * database down: shard locks, the followers' last writes and the pool wait for it), one line is
 * logged and the process exits with code 1. The timer is unref'd: a shutdown that finishes first
 * exits as always, and the timer never holds the process.
 */
const shutdownDeadline = <E>(seconds: number, logging: Layer.Layer<never, E>) =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const runtime = yield* Effect.runtime<never>()
      const line = `shutdown did not finish within ${seconds} s (bridge.shutdown_timeout_s); exiting with code 1`
      const exit = Effect.logError(line).pipe(
        Effect.annotateLogs({ shutdown_timeout_s: seconds }),
        Effect.provide(logging),
        Effect.orElse(() => Console.error(line)),
        Effect.ensuring(Effect.sync(() => process.exit(1)))
      )
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          setTimeout(() => Runtime.runFork(runtime)(exit), seconds * 1000).unref()
        })
      )
    })
  )

export const serve = (config: ResolvedConfig) => {
  const announce = Layer.effectDiscard(Effect.flatMap(SimulatorInfo, (info) => banner(config, Option.getOrNull(info.url))))
  // RedactorLive is the same layer value the daemon uses, so logs share its registered secrets.
  const logging = loggingLayer(logLevelOf(config.bridge.log_level), config.bridge.log_format).pipe(Layer.provide(RedactorLive))
  const app = Layer.mergeAll(
    announce,
    StrayRejectionsLogged,
    HeapSlackBounded(config.bridge.heap_slack_mib),
    shutdownDeadline(config.bridge.shutdown_timeout_s, logging)
  ).pipe(Layer.provideMerge(daemonLayer(config)))
  // A start that fails (port in use, data folder not writable) ends in one line and exit 1, not a trace.
  const place = { what: "agent-bridge serve", dataDir: config.dataDir, host: config.bridge.host, port: config.bridge.port }
  return Layer.launch(app.pipe(Layer.provide(logging))).pipe(
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.failCause(cause)
        : Effect.zipRight(printStartFailure(config.bridge.log_format, causeLine(cause, place), logging), Effect.sync(() => process.exit(1)))
    ),
    NodeRuntime.runMain({ disablePrettyLogger: true })
  )
}
