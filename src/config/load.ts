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

const SECTIONS = ["bridge", "hermes", "memory", "a2a", "skills", "inbox", "storage", "cluster", "limits", "oauth"] as const
const ENV_PREFIX = "AGENT_BRIDGE_"

/**
 * Keys whose values are secrets (`bridge.admin_key`, `hermes.key`, `hermes.profiles.<p>.key`): opaque
 * strings, taken from the environment as they are and never printed in a refusal.
 */
const SECRET_KEYS: ReadonlySet<string> = new Set(["key", "admin_key", "metrics_token"])
/** Secrets by section and key: `storage.url` may carry a password (`hermes.url` is no secret); the replicas' `cluster.secret`. */
const SECRET_PATHS: ReadonlySet<string> = new Set(["storage.url", "cluster.secret"])

const isSecret = (parent: string | undefined, key: string) => SECRET_KEYS.has(key) || SECRET_PATHS.has(`${parent}.${key}`)

/** Turns an env string into the YAML value it stands for ("8080" → 8080, "a,b" for lists); a secret stays as it is. */
const envValue = (section: string, key: string, raw: string, existing: unknown): unknown => {
  if (isSecret(section, key)) return raw
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
    out[section] = { ...current, [key]: envValue(section, key, value, current[key]) }
  }
  return out
}

const expand = (p: string, base: string): string => {
  const home = p === "~" || p.startsWith("~/") ? path.join(os.homedir(), p.slice(1)) : p
  return path.resolve(base, home)
}

/** How the formatter may print each value found under a secret key of `node` (JSON and plain). */
const secretTexts = (node: unknown, inSecret = false, parent?: string): ReadonlyArray<string> => {
  if (Array.isArray(node)) return node.flatMap((n) => secretTexts(n, inSecret))
  if (typeof node === "object" && node !== null) {
    return Object.entries(node).flatMap(([k, v]) => secretTexts(v, inSecret || isSecret(parent, k), k))
  }
  return inSecret && node !== null && node !== undefined ? [JSON.stringify(node), String(node)].filter((t) => t !== "") : []
}

/** The issue's message with every secret value in its `actual …` part masked (the whole message if it has none). */
const withoutSecrets = (message: string, secrets: ReadonlyArray<string>): string => {
  if (secrets.length === 0) return message
  const at = message.indexOf("actual ")
  const head = at === -1 ? "" : message.slice(0, at)
  const tail = [...secrets].sort((a, b) => b.length - a.length).reduce((t, s) => t.split(s).join("***REDACTED***"), message.slice(head.length))
  return head + tail
}

const describeIssues = (file: string, error: ParseResult.ParseError, tree: unknown): string => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  const secrets = secretTexts(tree)
  const lines = issues.map((i) => `  - ${i.path.length === 0 ? "(top level)" : i.path.join(".")}: ${withoutSecrets(i.message, secrets)}`)
  return `invalid configuration in ${file}:\n${lines.join("\n")}`
}

/** A YAML syntax error as its message and where it is, without the text around it. */
const yamlProblem = (e: unknown, text: string): string => {
  const message = String((e as Error).message ?? e)
  const pos = e instanceof YAML.YAMLError ? e.pos[0] : undefined
  if (pos === undefined) return message
  const before = text.slice(0, pos)
  return `${message} at line ${before.split("\n").length}, column ${pos - before.lastIndexOf("\n")}`
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
      // Not the library's pretty errors: they quote the offending line, which may hold a key.
      raw = YAML.parse(text, { prettyErrors: false }) ?? {}
    } catch (e) {
      return Either.left(new ConfigInvalid({ message: `configuration file ${file} is not valid YAML: ${yamlProblem(e, text)}` }))
    }
    if (typeof raw !== "object" || Array.isArray(raw)) {
      return Either.left(new ConfigInvalid({ message: `invalid configuration in ${file}:\n  - (top level): expected a mapping of sections` }))
    }
  }
  const merged = applyEnvOverrides(raw as Record<string, unknown>, env)
  const decoded = Schema.decodeUnknownEither(ConfigFile, { errors: "all", onExcessProperty: "error" })(merged)
  if (Either.isLeft(decoded)) {
    return Either.left(new ConfigInvalid({ message: describeIssues(file ?? "environment (AGENT_BRIDGE_*)", decoded.left, merged) }))
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
