import { Effect, Schema } from "effect"
import { RunList } from "../../../domain/runs/view.ts"
import { Runs } from "../../../services/runs/Runs.ts"
import { defineTool } from "../ToolDef.ts"
import { StatusField } from "./shared.ts"
import { PREVIEW_CHARS, RUNS_LIST_DEFAULT, RUNS_LIST_MAX } from "../../../domain/limits.ts"

export default defineTool({
  name: "agent_runs_list",
  title: "List your runs",
  description:
    `List your runs, newest first, each with the first ${PREVIEW_CHARS} characters of its output (output_preview); use it to find a run_id again. Filter by status; limit is 1 to ${RUNS_LIST_MAX} (default ${RUNS_LIST_DEFAULT}).`,
  input: Schema.Struct({
    status: Schema.optional(StatusField),
    limit: Schema.optional(Schema.Int.pipe(Schema.between(1, RUNS_LIST_MAX)).annotations({
      description: `At most this many runs (1 to ${RUNS_LIST_MAX}, default ${RUNS_LIST_DEFAULT}).`
    }))
  }),
  output: RunList,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  handler: ({ status, limit }) => Effect.flatMap(Runs, (runs) => runs.list({ status, limit: limit ?? RUNS_LIST_DEFAULT }))
})
