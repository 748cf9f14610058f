import { Effect, Schema } from "effect"
import { RunWaitView } from "../../../domain/runs/view.ts"
import { Runs } from "../../../services/runs/Runs.ts"
import { defineTool, Fields } from "../ToolDef.ts"
import { TAIL_EVENTS, WAIT_DEFAULT_SECONDS, WAIT_MAX_SECONDS } from "../../../domain/limits.ts"

export default defineTool({
  name: "agent_run_wait",
  title: "Wait for a run",
  description:
    `Wait until a run ends, asks a clarifying question (answer it with agent_run_answer) or timeout_s passes (default ${WAIT_DEFAULT_SECONDS}, at most ${WAIT_MAX_SECONDS}); returns the run view plus the last ${TAIL_EVENTS} events and timed_out. Keep timeout_s under your client's tool timeout and call again while timed_out is true: the run goes on, and an operator approval does not end the wait.`,
  input: Schema.Struct({
    run_id: Fields.runId,
    timeout_s: Schema.optional(Fields.seconds(WAIT_MAX_SECONDS, `Seconds to wait at most (default ${WAIT_DEFAULT_SECONDS}, at most ${WAIT_MAX_SECONDS}).`))
  }),
  output: RunWaitView,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  progress: true,
  handler: ({ run_id, timeout_s }) => Effect.flatMap(Runs, (runs) => runs.wait(run_id, timeout_s ?? WAIT_DEFAULT_SECONDS))
})
