import { specTypeSchemas } from "@modelcontextprotocol/server"
import { Effect, Schema } from "effect"
import { InvalidInput } from "../../../domain/errors.ts"
import { Caller } from "../../../request/Caller.ts"
import { Progress } from "../../../request/Progress.ts"
import { runTool } from "../runTool.ts"
import { defineTool } from "../ToolDef.ts"
import { type ReachableTools, shownName } from "./reachable.ts"

export const MAX_CALLS = 10

/** The result as the SDK's own schema reads it (defaults filled in); unchanged when it does not read. */
const normalized = (result: unknown): Record<string, unknown> => {
  const out = specTypeSchemas.CallToolResult["~standard"].validate(result)
  return (out instanceof Promise || out.issues !== undefined ? result : out.value) as Record<string, unknown>
}

/**
 * `tool_call(calls[{name, arguments}])`. Each call runs through `runTool` with this request's caller
 * and progress, which is the whole of a direct `tools/call` once the tool is found: the same decoding,
 * services (auth, limits, redaction), typed errors naming the real tool, and logs under the
 * real tool's name. Nothing else is checked here. The result is then normalized with the SDK's
 * `CallToolResult` schema, as the SDK server does to a direct call's result before sending it, so each
 * `result` is byte for byte what the direct call would have answered.
 */
export const toolCall = (reachable: ReachableTools) =>
  defineTool({
    name: "tool_call",
    title: "Call tools",
    description:
      "Call tools found with tool_search, in order, each exactly as if called directly (same checks, limits and errors). Returns {results: [{name, result}]}, where result is that tool's own MCP result: when its isError is true, its text reads 'Error executing tool <name>: bridge.<code>: …'.",
    input: Schema.Struct({
      calls: Schema.Array(
        Schema.Struct({
          name: Schema.String.annotations({ description: "The tool to call." }),
          arguments: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
            description: "Its arguments, as tool_describe's parameters say."
          }))
        })
      ).pipe(Schema.minItems(1), Schema.maxItems(MAX_CALLS)).annotations({
        description: `The calls to make, run one after another (1 to ${MAX_CALLS}).`
      })
    }),
    output: Schema.Struct({
      results: Schema.Array(Schema.Struct({
        name: Schema.String,
        result: Schema.Record({ key: Schema.String, value: Schema.Unknown })
      }))
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    progress: true,
    handler: ({ calls }) =>
      Effect.gen(function* () {
        const caller = yield* Caller
        const progress = yield* Progress
        const byName = new Map(reachable(caller).map((t) => [t.name, t]))
        // All names are checked before anything runs, so a typo never leaves half a batch done.
        const unknown = [...new Set(calls.map((c) => c.name).filter((n) => !byName.has(n)))]
        if (unknown.length > 0) {
          return yield* new InvalidInput({
            message: `unknown tool: ${unknown.map(shownName).join(", ")}; nothing was called (tool_search finds the tools you can call)`
          })
        }
        return {
          results: yield* Effect.forEach(calls, ({ name, arguments: args }) =>
            runTool(byName.get(name)!, args, caller, progress).pipe(
              Effect.map((result) => ({ name, result: normalized(result) }))
            ))
        }
      })
  })
