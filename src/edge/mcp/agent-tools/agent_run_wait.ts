import { Effect, Schema } from "effect"
import { RunWaitView } from "../../../domain/runs/view.ts"
import { Runs } from "../../../services/runs/Runs.ts"
import { defineTool, Fields } from "../ToolDef.ts"

export default defineTool({
  name: "agent_run_wait",
  title: "Wait for a run",
  description:
    "Wait until a run ends, asks a clarifying question (answer it with agent_run_answer) or timeout_s passes (default 120, at most 600); returns the run view plus the last 20 events and timed_out. Keep timeout_s under your client's tool timeout and call again while timed_out is true: the run goes on, and an operator approval does not end the wait.",
  input: Schema.Struct({
    run_id: Fields.runId,
    timeout_s: Schema.optional(Fields.seconds(600, "Seconds to wait at most (default 120, at most 600)."))
  }),
  output: RunWaitView,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  progress: true,
  handler: ({ run_id, timeout_s }) => Effect.flatMap(Runs, (runs) => runs.wait(run_id, timeout_s ?? 120))
})
