import { Effect, Schema } from "effect"
import { RunView } from "../../../domain/runs/view.ts"
import { Runs } from "../../../services/runs/Runs.ts"
import { defineTool, Fields } from "../ToolDef.ts"

export default defineTool({
  name: "agent_run_stop",
  title: "Stop a run",
  description:
    "Stop a run you no longer need; returns the run view, `stopping` until the run ends (then `cancelled`, or `completed` if it finished first). A finished run is returned unchanged.",
  input: Schema.Struct({ run_id: Fields.runId }),
  output: RunView,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  handler: ({ run_id }) => Effect.flatMap(Runs, (runs) => runs.stop(run_id))
})
