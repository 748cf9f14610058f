import { Effect, Schema } from "effect"
import { RunEventsPage } from "../../../domain/runs/view.ts"
import { Runs } from "../../../services/runs/Runs.ts"
import { defineTool, Fields } from "../ToolDef.ts"

export default defineTool({
  name: "agent_run_events",
  title: "Read a run's events",
  description:
    "Read a run's stored events after since_seq, oldest first (limit default 100, at most 500); returns {run_id, events, last_seq}. Call again with since_seq=last_seq to follow the run, or since_seq=0 to replay it (only the newest 500 events are kept).",
  input: Schema.Struct({
    run_id: Fields.runId,
    since_seq: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)).annotations({
      description: "Return events after this seq (default 0: from the start)."
    })),
    limit: Schema.optional(Schema.Int.pipe(Schema.between(1, 500)).annotations({ description: "At most this many events (1 to 500, default 100)." }))
  }),
  output: RunEventsPage,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  handler: ({ run_id, since_seq, limit }) => Effect.flatMap(Runs, (runs) => runs.events(run_id, since_seq ?? 0, limit ?? 100))
})
