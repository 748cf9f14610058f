import { Effect, Schema } from "effect"
import { RunList } from "../../../domain/runs/view.ts"
import { Runs } from "../../../services/runs/Runs.ts"
import { defineTool } from "../ToolDef.ts"
import { StatusField } from "./shared.ts"

export default defineTool({
  name: "agent_runs_list",
  title: "List your runs",
  description:
    "List your runs, newest first, each with the first 200 characters of its output (output_preview); use it to find a run_id again. Filter by status; limit is 1 to 200 (default 20).",
  input: Schema.Struct({
    status: Schema.optional(StatusField),
    limit: Schema.optional(Schema.Int.pipe(Schema.between(1, 200)).annotations({ description: "At most this many runs (1 to 200, default 20)." }))
  }),
  output: RunList,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  handler: ({ status, limit }) => Effect.flatMap(Runs, (runs) => runs.list({ status, limit: limit ?? 20 }))
})
