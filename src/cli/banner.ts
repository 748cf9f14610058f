/**
 * What `serve` prints at start: the banner once the listener is up, or the one line saying why the
 * start failed. With `bridge.log_format: text` the banner is the block an operator reads; with
 * `json` each is one log entry through the same redacting JSON logger as every other line (the
 * banner's facts as fields), so a log shipper reads the daemon's stderr as JSON from its first line.
 */
import { Console, Effect, Layer, Logger, LogLevel } from "effect"
import * as path from "node:path"
import type { ResolvedConfig } from "../config/load.ts"
import type { LogFormat } from "../daemon/logging.ts"
import { ADMIN_KEY_FILE } from "../services/auth/Auth.ts"
import { cliCommand } from "./invocation.ts"

/** The banner's facts, in the order the block shows them. */
/** Where the admin key is read from: its file in the data dir, or the config (replicas share one). */
const adminKeyPlace = (config: ResolvedConfig): string =>
  config.bridge.admin_key === undefined ? path.join(config.dataDir, ADMIN_KEY_FILE) : "bridge.admin_key in the config"

export const bannerFields = (config: ResolvedConfig, address: string, simulatorUrl: string | null) => ({
  address,
  mcp_agents: `${address}/mcp/agents/mcp${config.bridge.enabled ? "" : "  [disabled: bridge.enabled is false]"}`,
  mcp_memory: `${address}/mcp/memory/mcp`,
  health: `${address}/healthz`,
  inbox: `${address}/inbox`,
  data_dir: config.dataDir,
  admin_key: `${adminKeyPlace(config)} (signs in to /inbox)`,
  config: config.source ?? "(none: defaults and AGENT_BRIDGE_* environment)",
  hermes: simulatorUrl !== null
    ? `built-in simulator at ${simulatorUrl} (no Hermes configured; set hermes.url to use a real one)`
    : config.hermes.url,
  add_client: `${cliCommand()} client add NAME`
})

const block = (f: ReturnType<typeof bannerFields>) =>
  [
    `agent-bridge listening on ${f.address}`,
    `  MCP (agents): ${f.mcp_agents}`,
    `  MCP (memory): ${f.mcp_memory}`,
    `  health:       ${f.health}`,
    `  inbox:        ${f.inbox}`,
    `  data dir:     ${f.data_dir}`,
    `  admin key:    ${f.admin_key}`,
    `  config:       ${f.config}`,
    `  Hermes:       ${f.hermes}`,
    `  add a client: ${f.add_client}`
  ].join("\n")

/**
 * The banner through the daemon's logger when JSON is asked for. It is shown whatever
 * `bridge.log_level` says, as the text block is: it tells the operator where the admin key is.
 */
export const printBanner = (format: LogFormat, fields: ReturnType<typeof bannerFields>) =>
  format === "json"
    ? Effect.logInfo("agent-bridge listening").pipe(Effect.annotateLogs(fields), Logger.withMinimumLogLevel(LogLevel.Info))
    : Console.error(block(fields))

/**
 * The start failure's one line. The daemon's logging layer is gone by then (it was part of what
 * failed to start), so the JSON form is written through the `logging` layer it is given.
 */
export const printStartFailure = <E>(format: LogFormat, line: string, logging: Layer.Layer<never, E>) =>
  format === "json"
    ? Effect.logError(line).pipe(Logger.withMinimumLogLevel(LogLevel.Error), Effect.provide(logging), Effect.orElse(() => Console.error(line)))
    : Console.error(line)
