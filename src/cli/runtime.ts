/** Layers the CLI verbs use: configuration and storage, without the HTTP listener or Hermes. */
import { Layer, LogLevel } from "effect"
import { AppConfigLive } from "../config/AppConfig.ts"
import type { ResolvedConfig } from "../config/load.ts"
import { loggingLayer } from "../daemon/logging.ts"
import { DbForStores } from "../storage/Db.ts"
import { ChangeFeedLive } from "../storage/ChangeFeedLive.ts"
import { AuthLive } from "../services/auth/Auth.ts"
import { RedactorLive } from "../common/Redactor.ts"
import { RedactorForConfig } from "../daemon/heldSecrets.ts"

/**
 * The database and the process's change feed over it (another process's commits: `ChangeFeed`), and
 * the Redactor with every secret the config holds (`runs show` masks the admin key, the metrics
 * token and the database password as the daemon does).
 */
export const storageLayer = (config: ResolvedConfig) =>
  ChangeFeedLive.pipe(Layer.provideMerge(DbForStores(config)), Layer.provideMerge(Layer.mergeAll(AppConfigLive(config), RedactorForConfig(config))))

/**
 * The CLI's logger: stderr (stdout carries the verb's output, e.g. `--json`, which a log line there
 * would make unparseable), redacted, warnings and errors only (the services' start-up notes are
 * the daemon's business). Provided into the verb's layer so it shares that layer's Redactor.
 */
export const cliLoggingLayer = loggingLayer(LogLevel.Warning).pipe(Layer.provide(RedactorLive))

export const authLayer = (config: ResolvedConfig) => AuthLive.pipe(Layer.provideMerge(storageLayer(config)))

/** The MCP URL a client on another machine should use (loopback when bound to loopback). */
export const mcpUrl = (config: ResolvedConfig, server: "agents" | "memory" = "agents") => {
  const host = config.bridge.host === "0.0.0.0" || config.bridge.host === "::" ? "<this-host>" : config.bridge.host
  const h = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host
  return `http://${h}:${config.bridge.port}/mcp/${server}/mcp`
}
