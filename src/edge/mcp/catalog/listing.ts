/**
 * Which tools a caller sees on each MCP server, and their `tools/list` entries. The entries are built
 * once per tool (JSON Schema generation is not free) and shared by every session.
 */
import type { Tool } from "../wireTypes.ts"
import type { CallerShape } from "../../../request/Caller.ts"
import { toolJsonSchema } from "../jsonSchema.ts"
import type { ToolDef } from "../ToolDef.ts"

export type ServerKind = "agents" | "memory"

const listings = new WeakMap<ToolDef, Tool>()
const compactListings = new WeakMap<ToolDef, Tool>()

/** The full `tools/list` entry: name, title, description, input and output JSON Schemas, annotations. */
export const toolListing = (tool: ToolDef): Tool => {
  const cached = listings.get(tool)
  if (cached !== undefined) return cached
  const listing: Tool = {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: toolJsonSchema(tool.input) as Tool["inputSchema"],
    outputSchema: toolJsonSchema(tool.output) as NonNullable<Tool["outputSchema"]>,
    annotations: { ...tool.annotations }
  }
  listings.set(tool, listing)
  return listing
}

/**
 * The compact catalog's entry: the full entry without `outputSchema`. Clients hand a model only a
 * tool's name, description and input schema, so the output schema costs context and tells the model
 * nothing; the call still returns `structuredContent`, and the description says what it holds.
 */
export const compactToolListing = (tool: ToolDef): Tool => {
  const cached = compactListings.get(tool)
  if (cached !== undefined) return cached
  const { outputSchema: _output, ...listing } = toolListing(tool)
  compactListings.set(tool, listing)
  return listing
}

export interface Catalog {
  /** The `tools/list` entries this caller sees on this server, in order. */
  readonly list: (kind: ServerKind, caller: CallerShape) => ReadonlyArray<Tool>
  /**
   * The tool this caller may call by this name on this server; `undefined` when the tool is unknown
   * to them (no such tool, or their filter removes it). A tool may be callable without being listed:
   * the compact catalog lists a few tools and reaches the rest through `tool_call`.
   */
  readonly find: (kind: ServerKind, caller: CallerShape, name: string) => ToolDef | undefined
}
