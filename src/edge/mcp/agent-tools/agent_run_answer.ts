import { Effect, Schema } from "effect"
import { RunView } from "../../../domain/runs/view.ts"
import { Runs } from "../../../services/runs/Runs.ts"
import { defineTool, Fields } from "../ToolDef.ts"

export default defineTool({
  name: "agent_run_answer",
  title: "Answer a run's question",
  description:
    "Answer the clarifying question in a run's `pending` field (pass its request_id); returns the run view, and the run resumes. Follow up with agent_run_wait.",
  input: Schema.Struct({
    run_id: Fields.runId,
    request_id: Schema.String.annotations({ description: "The request_id of the run's pending clarification." }),
    answer: Schema.Union(Schema.String, Schema.Array(Schema.String)).annotations({
      description: "The answer: free text, one of the offered choices, or a list of choices when multi_select is true."
    })
  }),
  output: RunView,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  handler: ({ run_id, request_id, answer }) => Effect.flatMap(Runs, (runs) => runs.answer(run_id, request_id, answer))
})
