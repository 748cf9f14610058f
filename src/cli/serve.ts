/**
 * `agent-bridge serve` (and `npm start`): run the daemon until SIGTERM/SIGINT, then drain and exit 0.
 * With no Hermes configured, the built-in simulator runs in-process and the banner says so.
 */
import { HttpServer } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { Cause, Console, Effect, Layer, Option } from "effect"
import * as path from "node:path"
import type { ResolvedConfig } from "../config/load.ts"
import { cliCommand } from "./invocation.ts"
import { ADMIN_KEY_FILE } from "../services/auth/Auth.ts"
import { daemonLayer } from "../daemon/Daemon.ts"
import { causeLine } from "../daemon/startFailure.ts"
import { SimulatorInfo } from "../hermes/embedded.ts"
import { logLevelOf, loggingLayer } from "../daemon/logging.ts"
import { StrayRejectionsLogged } from "../daemon/strayRejections.ts"
import { RedactorLive } from "../common/Redactor.ts"

const banner = (config: ResolvedConfig, simulatorUrl: string | null) =>
  HttpServer.addressFormattedWith((address) =>
    Console.error(
      [
        `agent-bridge listening on ${address}`,
        `  MCP (agents): ${address}/mcp/agents/mcp${config.bridge.enabled ? "" : "  [disabled: bridge.enabled is false]"}`,
        `  MCP (memory): ${address}/mcp/memory/mcp`,
        `  health:       ${address}/healthz`,
        `  inbox:        ${address}/inbox`,
        `  data dir:     ${config.dataDir}`,
        `  admin key:    ${config.bridge.admin_key === undefined ? path.join(config.dataDir, ADMIN_KEY_FILE) : "bridge.admin_key in the config"} (signs in to /inbox)`,
        `  config:       ${config.source ?? "(none: defaults and AGENT_BRIDGE_* environment)"}`,
        simulatorUrl !== null
          ? `  Hermes:       built-in simulator at ${simulatorUrl} (no Hermes configured; set hermes.url to use a real one)`
          : `  Hermes:       ${config.hermes.url}`,
        `  add a client: ${cliCommand()} client add NAME`
      ].join("\n")
    )
  )

export const serve = (config: ResolvedConfig) => {
  const announce = Layer.effectDiscard(Effect.flatMap(SimulatorInfo, (info) => banner(config, Option.getOrNull(info.url))))
  const app = Layer.merge(announce, StrayRejectionsLogged).pipe(Layer.provideMerge(daemonLayer(config)))
    // RedactorLive is the same layer value the daemon uses, so logs share its registered secrets.
  const logging = loggingLayer(logLevelOf(config.bridge.log_level), config.bridge.log_format).pipe(Layer.provide(RedactorLive))
  // A start that fails (port in use, data folder not writable) ends in one line and exit 1, not a trace.
  const place = { what: "agent-bridge serve", dataDir: config.dataDir, host: config.bridge.host, port: config.bridge.port }
  return Layer.launch(app.pipe(Layer.provide(logging))).pipe(
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.failCause(cause)
        : Effect.zipRight(Console.error(causeLine(cause, place)), Effect.sync(() => process.exit(1)))
    ),
    NodeRuntime.runMain({ disablePrettyLogger: true })
  )
}
