import { Effect, Schema } from "effect"
import { Caller } from "../../../request/Caller.ts"
import { buildIndex, search } from "../catalog/search.ts"
import { toolListing } from "../catalog/listing.ts"
import { defineTool, type ToolDef } from "../ToolDef.ts"
import type { ReachableTools } from "./reachable.ts"

export const MAX_QUERIES = 10
export const DEFAULT_LIMIT = 5

const ToolSummary = Schema.Struct({
  description: Schema.String,
  required: Schema.Array(Schema.String)
})

const requiredArgs = (tool: ToolDef): ReadonlyArray<string> => {
  const required = toolListing(tool).inputSchema.required
  return Array.isArray(required) ? required : []
}

const argNames = (tool: ToolDef): ReadonlyArray<string> => Object.keys(toolListing(tool).inputSchema.properties ?? {})

/**
 * `tool_search(queries[], limit?)` in Hermes's shape. `all` is every tool the search can ever reach
 * (indexed once); `reachable` narrows it to what this caller may call.
 */
export const toolSearch = (all: ReadonlyArray<ToolDef>, reachable: ReachableTools) => {
  const index = buildIndex(all.map((t) => ({ name: t.name, description: t.description, fields: argNames(t) })))
  return defineTool({
    name: "tool_search",
    title: "Find tools",
    description:
      "Find the tools not listed here (run events, answering, steering and stopping runs, listing runs, memory, skills, capabilities) by what you want to do, one short query per task. Returns the matching tool names per query plus each match's description and required arguments; a query that matches nothing gets every tool name in `available`.",
    input: Schema.Struct({
      queries: Schema.Array(Schema.String).pipe(Schema.minItems(1), Schema.maxItems(MAX_QUERIES)).annotations({
        description: `What you want to do, a few words each (1 to ${MAX_QUERIES} queries).`
      }),
      limit: Schema.optional(Schema.Int.pipe(Schema.between(1, all.length)).annotations({
        description: `Most matches per query (default ${DEFAULT_LIMIT}).`
      }))
    }),
    output: Schema.Struct({
      results: Schema.Array(Schema.Struct({ query: Schema.String, matches: Schema.Array(Schema.String) })),
      tools: Schema.Record({ key: Schema.String, value: ToolSummary }),
      available: Schema.optional(Schema.Array(Schema.String))
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    handler: ({ queries, limit }) =>
      Effect.map(Caller, (caller) => {
        const tools = reachable(caller)
        const byName = new Map(tools.map((t) => [t.name, t]))
        const results = queries.map((query) => ({
          query,
          matches: search(index, query, limit ?? DEFAULT_LIMIT, (name) => byName.has(name))
        }))
        const summaries: Record<string, typeof ToolSummary.Type> = {}
        for (const name of results.flatMap((r) => r.matches)) {
          const tool = byName.get(name)
          if (tool !== undefined) summaries[name] = { description: tool.description, required: requiredArgs(tool) }
        }
        const missed = results.some((r) => r.matches.length === 0)
        return missed ? { results, tools: summaries, available: tools.map((t) => t.name) } : { results, tools: summaries }
      })
  })
}
