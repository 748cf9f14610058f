import { Effect, Schema } from "effect"
import { RunView } from "../../../domain/runs/view.ts"
import { Runs } from "../../../services/runs/Runs.ts"
import { defineTool, Fields } from "../ToolDef.ts"

export default defineTool({
  name: "agent_run_steer",
  title: "Steer a running run",
  description:
    "Add guidance (a correction or a new constraint) to a run while its status is `running`; returns the run view. Follow up with agent_run_wait.",
  input: Schema.Struct({
    run_id: Fields.runId,
    input: Schema.String.annotations({ description: "The guidance to add." })
  }),
  output: RunView,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  handler: ({ run_id, input }) => Effect.flatMap(Runs, (runs) => runs.steer(run_id, input))
})
