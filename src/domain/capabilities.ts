/**
 * The allow-list projection behind `agent_capabilities` (docs/REFERENCE.md, docs/SIMULATOR.md). Only named keys are read; a string the redactor would change is dropped, never masked, and
 * `${VAR}` references are never expanded, so no secret can be copied out of the file.
 */
import * as YAML from "yaml"
import { Schema } from "effect"

/** `agent_capabilities`: the allow-listed projection of a profile. */
const NullStrings = Schema.NullOr(Schema.Array(Schema.String))
export const AgentCapabilities = Schema.Struct({
  agent: Schema.String,
  profile: Schema.String,
  api_server_version: Schema.NullOr(Schema.String),
  model_aliases: Schema.NullOr(
    Schema.Record({ key: Schema.String, value: Schema.Struct({ model: Schema.NullOr(Schema.String), provider: Schema.NullOr(Schema.String) }) })
  ),
  toolsets_enabled: NullStrings,
  toolsets_disabled: NullStrings,
  mcp_servers: NullStrings,
  skills_dirs: NullStrings,
  platforms_enabled: NullStrings,
  approvals_mode: Schema.NullOr(Schema.String)
})
export type AgentCapabilities = typeof AgentCapabilities.Type

const VERSION = /^\d+(\.\d+){1,3}([-+.][0-9A-Za-z.-]{1,20})?$/

/** A version from `/health` is kept only if it looks like one (dotted numeric core, short tag). */
export const validVersion = (v: string | null | undefined): string | null =>
  typeof v === "string" && VERSION.test(v) ? v : null

type Tree = { readonly [k: string]: unknown }
const isTree = (u: unknown): u is Tree => typeof u === "object" && u !== null && !Array.isArray(u)
const at = (t: unknown, ...keys: ReadonlyArray<string>): unknown =>
  keys.reduce<unknown>((node, k) => (isTree(node) ? node[k] : undefined), t)

export interface ProjectionInput {
  readonly agent: string
  readonly profile: string
  readonly apiServerVersion: string | null
  /** The profile's config.yaml text, or null when it could not be read. */
  readonly configText: string | null
  /** False for a string the redactor would change: it is dropped. */
  readonly keep: (s: string) => boolean
}

const parse = (text: string | null): Tree | null => {
  if (text === null) return null
  try {
    const doc: unknown = YAML.parse(text)
    if (doc === null || doc === undefined) return {}
    return isTree(doc) ? doc : null
  } catch {
    return null
  }
}

export const projectCapabilities = (input: ProjectionInput): AgentCapabilities => {
  const { keep } = input
  const str = (u: unknown): string | null => (typeof u === "string" && keep(u) ? u : null)
  const strings = (u: unknown): ReadonlyArray<string> | null =>
    Array.isArray(u) ? u.flatMap((x) => (typeof x === "string" && keep(x) ? [x] : [])) : null
  const names = (u: unknown): ReadonlyArray<string> | null => (isTree(u) ? Object.keys(u).filter(keep) : null)

  const cfg = parse(input.configText)
  const base = { agent: input.agent, profile: input.profile, api_server_version: input.apiServerVersion }
  if (cfg === null) {
    return {
      ...base, model_aliases: null, toolsets_enabled: null, toolsets_disabled: null, mcp_servers: null,
      skills_dirs: null, platforms_enabled: null, approvals_mode: null
    }
  }
  const aliasesNode = at(cfg, "model_aliases") ?? at(cfg, "platforms", "api_server", "extra", "model_routes")
  const model_aliases = isTree(aliasesNode)
    ? Object.fromEntries(
        Object.entries(aliasesNode)
          .filter(([alias]) => keep(alias))
          .map(([alias, v]) => [alias, { model: str(at(v, "model")), provider: str(at(v, "provider")) }])
      )
    : null
  const platforms = at(cfg, "platforms")
  return {
    ...base,
    model_aliases,
    toolsets_enabled: strings(at(cfg, "platform_toolsets", "api_server") ?? at(cfg, "toolsets")),
    toolsets_disabled: strings(at(cfg, "agent", "disabled_toolsets")),
    mcp_servers: names(at(cfg, "mcp_servers")),
    skills_dirs: strings(at(cfg, "skills", "external_dirs")),
    platforms_enabled: isTree(platforms)
      ? Object.entries(platforms).filter(([name, p]) => at(p, "enabled") === true && keep(name)).map(([name]) => name)
      : null,
    approvals_mode: str(at(cfg, "approvals", "mode"))
  }
}
