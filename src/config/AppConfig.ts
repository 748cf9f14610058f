/** The decoded configuration as a service, so every Layer reads it the same way and tests can swap it. */
import { Context, Layer } from "effect"
import { loadConfig, type LoadOptions, type ResolvedConfig } from "./load.ts"

export class AppConfig extends Context.Tag("agent-bridge/AppConfig")<AppConfig, ResolvedConfig>() {}

/** The resolved configuration the daemon or the CLI loaded. */
export const AppConfigLive = (cfg: ResolvedConfig) => Layer.succeed(AppConfig, cfg)

/** A config built from an in-memory YAML tree (tests): same decoding and defaults as a file. */
export const AppConfigTest = (options: LoadOptions) =>
  Layer.effect(AppConfig, loadConfig(options))
