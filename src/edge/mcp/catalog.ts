/**
 * Which tools a caller sees on each MCP server, and their `tools/list` entries. The entries are built
 * once per tool (JSON Schema generation is not free) and shared by every session.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js"
import type { CallerShape } from "../../services/Caller.ts"
import { toolJsonSchema } from "./jsonSchema.ts"
import type { ToolDef } from "./ToolDef.ts"

export type ServerKind = "agents" | "memory"

const listings = new WeakMap<ToolDef, Tool>()

export const toolListing = (tool: ToolDef): Tool => {
  const cached = listings.get(tool)
  if (cached !== undefined) return cached
  const listing: Tool = {
    name: tool.name,
    description: tool.description,
    inputSchema: toolJsonSchema(tool.input) as Tool["inputSchema"],
    outputSchema: toolJsonSchema(tool.output) as NonNullable<Tool["outputSchema"]>,
    annotations: { ...tool.annotations }
  }
  listings.set(tool, listing)
  return listing
}

export interface Catalog {
  /** The tools this caller may list and call on this server. */
  readonly tools: (kind: ServerKind, caller: CallerShape) => ReadonlyArray<ToolDef>
}
