import { Effect, Schema } from "effect"
import { RunView } from "../../../domain/runs/view.ts"
import { Runs } from "../../../services/runs/Runs.ts"
import { defineTool, Fields } from "../ToolDef.ts"
import { ReasoningEffortField, waitView } from "./shared.ts"
import { WAIT_MAX_SECONDS } from "../../../domain/limits.ts"

export default defineTool({
  name: "agent_run",
  title: "Delegate a task to Hermes",
  description:
    "Delegate a task to a Hermes agent; returns the run view (run_id, status, output so far) at once, or after up to wait_s seconds (keep wait_s under your client's tool timeout, often 60 s). Follow the run with agent_run_wait, and reuse idempotency_key to retry a start safely.",
  input: Schema.Struct({
    agent: Fields.agent,
    input: Schema.String.annotations({ description: "The task for the agent, in plain language." }),
    session_key: Schema.optional(Schema.String.annotations({
      description: "Groups runs into one Hermes session (memory and conversation affinity). Visible ASCII, no spaces."
    })),
    instructions: Schema.optional(Schema.String.annotations({ description: "An extra system prompt for this run only." })),
    reasoning_effort: Schema.optional(ReasoningEffortField),
    idempotency_key: Schema.optional(Schema.String.annotations({
      description: "Makes the start safe to retry: the same key and request return the same run. Visible ASCII, no spaces."
    })),
    wait_s: Schema.optional(Fields.seconds(
      WAIT_MAX_SECONDS,
      `Seconds to wait for the run to end or ask a question (0 = return at once, the default; at most ${WAIT_MAX_SECONDS}).`
    ))
  }),
  output: RunView,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  progress: true,
  handler: ({ wait_s, ...start }) =>
    Effect.gen(function* () {
      const runs = yield* Runs
      const view = yield* runs.start(start)
      if (wait_s === undefined || wait_s <= 0) return view
      return waitView(yield* runs.wait(view.run_id, wait_s))
    })
})
