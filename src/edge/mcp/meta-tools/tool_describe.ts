import { Effect, Schema } from "effect"
import { Caller } from "../../../request/Caller.ts"
import { toolListing } from "../catalog/listing.ts"
import { defineTool } from "../ToolDef.ts"
import type { ReachableTools } from "./reachable.ts"

export const MAX_NAMES = 16

/** `tool_describe(names[])` in Hermes's shape: each known tool's input schema, and the names that are not. */
export const toolDescribe = (reachable: ReachableTools) =>
  defineTool({
    name: "tool_describe",
    title: "Describe tools",
    description:
      "Get the full argument schema of tools found with tool_search, before calling them with tool_call. Returns {tools: {name: {parameters}}, not_found: [names you cannot call]}.",
    input: Schema.Struct({
      names: Schema.Array(Schema.String).pipe(Schema.minItems(1), Schema.maxItems(MAX_NAMES)).annotations({
        description: `Tool names, as tool_search returns them (1 to ${MAX_NAMES}).`
      })
    }),
    output: Schema.Struct({
      tools: Schema.Record({
        key: Schema.String,
        value: Schema.Struct({ parameters: Schema.Record({ key: Schema.String, value: Schema.Unknown }) })
      }),
      not_found: Schema.Array(Schema.String)
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    handler: ({ names }) =>
      Effect.map(Caller, (caller) => {
        const byName = new Map(reachable(caller).map((t) => [t.name, t]))
        const tools: Record<string, { parameters: Record<string, unknown> }> = {}
        const notFound: Array<string> = []
        for (const name of new Set(names)) {
          const tool = byName.get(name)
          if (tool === undefined) notFound.push(name)
          else tools[name] = { parameters: toolListing(tool).inputSchema }
        }
        return { tools, not_found: notFound }
      })
  })
