/**
 * `agent-bridge serve` (and `npm start`): run the daemon until SIGTERM/SIGINT, then drain and exit 0.
 * With no Hermes configured, the built-in simulator runs in-process and the banner says so.
 */
import { HttpServer } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Layer } from "effect"
import type { ResolvedConfig } from "../config/load.ts"
import { daemonLayer, type DaemonParts } from "../daemon/Daemon.ts"
import { loggingLayer } from "../daemon/logging.ts"

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
        `  config:       ${config.source ?? "(none: defaults and AGENT_BRIDGE_* environment)"}`,
        simulatorUrl !== null
          ? `  Hermes:       built-in simulator at ${simulatorUrl} (no Hermes configured; set hermes.url to use a real one)`
          : `  Hermes:       ${config.hermes.url}`,
        "  add a client: agent-bridge client add NAME"
      ].join("\n")
    )
  )

export const serve = (config: ResolvedConfig, parts: DaemonParts & { readonly simulatorUrl: Effect.Effect<string | null> }) => {
  const announce = Layer.effectDiscard(Effect.flatMap(parts.simulatorUrl, (url) => banner(config, url)))
  const app = announce.pipe(Layer.provideMerge(daemonLayer(config, parts)))
  return Layer.launch(app.pipe(Layer.provide(loggingLayer()))).pipe(NodeRuntime.runMain({ disablePrettyLogger: true }))
}
