import { Effect, Schema } from "effect"
import { RunView } from "../../../domain/runs/view.ts"
import { Runs } from "../../../services/runs/Runs.ts"
import { defineTool, Fields } from "../ToolDef.ts"
import { offsetRefusal } from "./shared.ts"
import { WINDOW_BYTES, kib } from "../../../domain/limits.ts"

export default defineTool({
  name: "agent_run_status",
  title: "Read a run's status and output",
  description:
    `Get a run's current view (status, output, pending question) without waiting. Output comes in ${kib(WINDOW_BYTES)} windows: when truncated is true, call again with offset=next_offset (the \`more\` field spells the call).`,
  input: Schema.Struct({
    run_id: Fields.runId,
    offset: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)).annotations({
      description: "Byte offset of the output window to read (default 0)."
    }))
  }),
  output: RunView,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  invalidInput: offsetRefusal,
  handler: ({ run_id, offset }) => Effect.flatMap(Runs, (runs) => runs.status(run_id, offset ?? 0))
})
