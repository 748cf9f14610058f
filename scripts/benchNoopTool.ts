/** A tool that does nothing: one MCP round trip through the edge and nothing else (the benches' baseline). */
import { Effect, Schema } from "effect"
import { defineTool } from "../src/edge/mcp/ToolDef.ts"

export const noopTool = defineTool({
  name: "bench_noop",
  title: "Do nothing",
  description: "Does nothing (benchmark baseline).",
  input: Schema.Struct({ run_id: Schema.String }),
  output: Schema.Struct({ ok: Schema.Boolean }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  handler: () => Effect.succeed({ ok: true })
})
