/**
 * The per-client catalog (docs/REFERENCE.md). Each client's `clients.<name>` settings pick
 * what it lists and what it may call:
 * - `tools: {include, exclude}` (Hermes's semantics, see `filter.ts`) removes tools from both servers;
 *   a removed tool is unknown to that client, whether called directly or through `tool_call`.
 * - `catalog: compact` lists only the core run tools plus `tool_search`, `tool_describe`, `tool_call`
 *   on the agents server; the other tools stay callable (directly or through `tool_call`), they are
 *   just not listed. The memory server is small and has no compact form.
 * The admin key has no `clients` entry: full catalog, no filter. A client without an entry gets the
 * defaults (full, no filter).
 */
import type { Tool } from "../wireTypes.ts"
import type { ClientSettings } from "../../../config/schema.ts"
import type { CallerShape } from "../../../request/Caller.ts"
import { type Catalog, compactToolListing, type ServerKind, toolListing } from "./listing.ts"
import { makeMetaTools } from "../meta-tools/index.ts"
import { agentTools } from "../agent-tools/index.ts"
import type { ToolDef } from "../ToolDef.ts"
import { NO_FILTER, type ToolFilterSettings, toolPredicate } from "./filter.ts"

/** Listed in the compact catalog, in this order: what most turns need to delegate and follow a run. */
export const CORE_TOOL_NAMES = ["agents_list", "agent_run", "agent_run_wait", "agent_run_status"] as const

export interface CatalogSettings {
  readonly catalog: "full" | "compact"
  readonly tools: ToolFilterSettings
}

const DEFAULTS: CatalogSettings = { catalog: "full", tools: NO_FILTER }

/** Own keys only: a client may well be named "constructor", which every object inherits. */
export const settingsFor = (clients: Readonly<Record<string, ClientSettings>>, caller: CallerShape): CatalogSettings =>
  caller.isAdmin || !Object.hasOwn(clients, caller.client) ? DEFAULTS : clients[caller.client]!

/** One client's view of one server: what `tools/list` answers and what `tools/call` may run. */
interface ServerView {
  readonly listed: ReadonlyArray<Tool>
  readonly callable: ReadonlyMap<string, ToolDef>
}

interface ClientView {
  readonly agents: ServerView
  /** The agent tools after the filter: what the meta tools reach. */
  readonly reachable: ReadonlyArray<ToolDef>
  readonly memory: ServerView
}

const byName = (tools: ReadonlyArray<ToolDef>): ReadonlyMap<string, ToolDef> => new Map(tools.map((t) => [t.name, t]))

const assertUniqueNames = (tools: ReadonlyArray<ToolDef>) => {
  const seen = new Set<string>()
  for (const t of tools) {
    if (seen.has(t.name)) throw new Error(`two tools are named ${t.name}`)
    seen.add(t.name)
  }
}

export const makeCatalog = (
  clients: Readonly<Record<string, ClientSettings>>,
  memoryTools: ReadonlyArray<ToolDef>,
  tools: ReadonlyArray<ToolDef> = agentTools
): Catalog => {
  // Settings are fixed for the daemon's life, so each client's view is built once, on first use.
  const views = new Map<string, ClientView>()
  const viewKey = (caller: CallerShape) => (caller.isAdmin ? "\u0000admin" : caller.client)

  const metaTools = makeMetaTools(tools, (caller) => viewOf(caller).reachable)
  assertUniqueNames([...tools, ...metaTools])

  const buildView = (settings: CatalogSettings): ClientView => {
    const allowed = toolPredicate(settings.tools)
    const reachable = tools.filter((t) => allowed(t.name))
    const memory = memoryTools.filter((t) => allowed(t.name))
    const core = new Set<string>(CORE_TOOL_NAMES)
    const agents: ServerView =
      settings.catalog === "compact"
        ? {
            listed: [...reachable.filter((t) => core.has(t.name)), ...metaTools].map(compactToolListing),
            callable: byName([...reachable, ...metaTools])
          }
        : { listed: reachable.map(toolListing), callable: byName(reachable) }
    return { agents, reachable, memory: { listed: memory.map(toolListing), callable: byName(memory) } }
  }

  const viewOf = (caller: CallerShape): ClientView => {
    const key = viewKey(caller)
    const cached = views.get(key)
    if (cached !== undefined) return cached
    const view = buildView(settingsFor(clients, caller))
    views.set(key, view)
    return view
  }

  const server = (kind: ServerKind, caller: CallerShape): ServerView => viewOf(caller)[kind]

  return {
    list: (kind, caller) => server(kind, caller).listed,
    find: (kind, caller, name) => server(kind, caller).callable.get(name)
  }
}
