/**
 * Reads `agent-bridge.yaml` (from `--config`, else `AGENT_BRIDGE_CONFIG`, else `./agent-bridge.yaml`
 * when present), applies `AGENT_BRIDGE_<SECTION>_<KEY>` environment overrides, and decodes the result.
 * A bad file fails with a `ConfigInvalid` that names the file, the key and what was expected.
 */
import { Data, Either, ParseResult, Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as YAML from "yaml"
import { ConfigFile } from "./schema.ts"

export class ConfigInvalid extends Data.TaggedError("ConfigInvalid")<{ readonly message: string }> {}

export interface ResolvedConfig extends ConfigFile {
  /** The file the config came from, or null when none was used. */
  readonly source: string | null
  /** Absolute data directory. */
  readonly dataDir: string
  /** Absolute Hermes home (profile config.yaml files are read from here). */
  readonly hermesHome: string
  /** Absolute drop-in skills directory. */
  readonly dropinDir: string
  /** True when no Hermes is configured or `hermes.url` is "sim": the daemon embeds the simulator. */
  readonly useSimulator: boolean
}

const SECTIONS = ["bridge", "hermes", "memory", "skills", "inbox"] as const
const ENV_PREFIX = "AGENT_BRIDGE_"

/** Turns an env string into the YAML value it stands for ("8080" → 8080, "a,b" for lists). */
const envValue = (raw: string, existing: unknown): unknown => {
  if (Array.isArray(existing) || raw.includes(",")) return raw.split(",").map((s) => s.trim()).filter((s) => s !== "")
  try {
    const parsed: unknown = YAML.parse(raw)
    return parsed === null || typeof parsed === "object" ? raw : parsed
  } catch {
    return raw
  }
}

/** Applies `AGENT_BRIDGE_BRIDGE_PORT=9000`-style overrides onto the raw YAML tree. */
export const applyEnvOverrides = (raw: Record<string, unknown>, env: NodeJS.ProcessEnv): Record<string, unknown> => {
  const out: Record<string, unknown> = { ...raw }
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(ENV_PREFIX) || value === undefined || name === `${ENV_PREFIX}CONFIG`) continue
    const rest = name.slice(ENV_PREFIX.length).toLowerCase()
    const section = SECTIONS.find((s) => rest.startsWith(`${s}_`))
    if (section === undefined) continue
    const key = rest.slice(section.length + 1)
    const current = (typeof out[section] === "object" && out[section] !== null ? out[section] : {}) as Record<string, unknown>
    out[section] = { ...current, [key]: envValue(value, current[key]) }
  }
  return out
}

const expand = (p: string, base: string): string => {
  const home = p === "~" || p.startsWith("~/") ? path.join(os.homedir(), p.slice(1)) : p
  return path.resolve(base, home)
}

const describeIssues = (file: string, error: ParseResult.ParseError): string => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  const lines = issues.map((i) => `  - ${i.path.length === 0 ? "(top level)" : i.path.join(".")}: ${i.message}`)
  return `invalid configuration in ${file}:\n${lines.join("\n")}`
}

export interface LoadOptions {
  readonly configPath?: string | undefined
  readonly env?: NodeJS.ProcessEnv
  readonly cwd?: string
}

export const loadConfig = (options: LoadOptions = {}): Either.Either<ResolvedConfig, ConfigInvalid> => {
  const env = options.env ?? process.env
  const cwd = options.cwd ?? process.cwd()
  const explicit = options.configPath ?? env[`${ENV_PREFIX}CONFIG`]
  const candidate = explicit ?? (fs.existsSync(path.join(cwd, "agent-bridge.yaml")) ? "agent-bridge.yaml" : undefined)
  const file = candidate === undefined ? null : path.resolve(cwd, candidate)

  let raw: unknown = {}
  if (file !== null) {
    let text: string
    try {
      text = fs.readFileSync(file, "utf8")
    } catch (e) {
      return Either.left(new ConfigInvalid({ message: `cannot read configuration file ${file}: ${(e as Error).message}` }))
    }
    try {
      raw = YAML.parse(text) ?? {}
    } catch (e) {
      return Either.left(new ConfigInvalid({ message: `configuration file ${file} is not valid YAML: ${(e as Error).message}` }))
    }
    if (typeof raw !== "object" || Array.isArray(raw)) {
      return Either.left(new ConfigInvalid({ message: `invalid configuration in ${file}:\n  - (top level): expected a mapping of sections` }))
    }
  }
  const merged = applyEnvOverrides(raw as Record<string, unknown>, env)
  const decoded = Schema.decodeUnknownEither(ConfigFile, { errors: "all", onExcessProperty: "error" })(merged)
  if (Either.isLeft(decoded)) {
    return Either.left(new ConfigInvalid({ message: describeIssues(file ?? "environment (AGENT_BRIDGE_*)", decoded.left) }))
  }
  const cfg = decoded.right
  const base = file === null ? cwd : path.dirname(file)
  const dataDir = expand(cfg.bridge.data_dir, base)
  const url = cfg.hermes.url
  return Either.right({
    ...cfg,
    source: file,
    dataDir,
    hermesHome: expand(cfg.hermes.home, base),
    dropinDir: cfg.skills.dropin_dir === undefined ? path.join(dataDir, "skills") : expand(cfg.skills.dropin_dir, base),
    useSimulator: url === undefined || url === "sim"
  })
}
