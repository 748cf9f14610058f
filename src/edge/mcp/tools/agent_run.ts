import { Effect, Schema } from "effect"
import { RunView } from "../../../domain/runs/view.ts"
import { Runs } from "../../../services/Runs.ts"
import { defineTool, Fields } from "../ToolDef.ts"
import { ReasoningEffortField, waitView } from "./shared.ts"

export default defineTool({
  name: "agent_run",
  description:
    "Start a run: delegate `input` to a Hermes agent and get its run view (run_id, status, output so far). Returns at once by default; pass wait_s to wait up to that many seconds, then follow up with agent_run_wait or agent_run_status. Reuse idempotency_key to make retries safe.",
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
    wait_s: Schema.optional(Fields.seconds(600, "Seconds to wait for the run to end or ask a question (0 = return at once, the default; at most 600)."))
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
