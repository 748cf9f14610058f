import { Effect, Schema } from "effect"
import { RunEventsPage } from "../../../domain/runs/view.ts"
import { Runs } from "../../../services/runs/Runs.ts"
import { defineTool, Fields } from "../ToolDef.ts"
import { EVENTS_KEPT, EVENTS_PAGE_DEFAULT, EVENTS_PAGE_MAX } from "../../../domain/limits.ts"

export default defineTool({
  name: "agent_run_events",
  title: "Read a run's events",
  description:
    `Read a run's stored events after since_seq, oldest first (limit default ${EVENTS_PAGE_DEFAULT}, at most ${EVENTS_PAGE_MAX}); returns {run_id, events, last_seq}. Call again with since_seq=last_seq to follow the run, or since_seq=0 to replay it (only the newest ${EVENTS_KEPT} events are kept).`,
  input: Schema.Struct({
    run_id: Fields.runId,
    since_seq: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)).annotations({
      description: "Return events after this seq (default 0: from the start)."
    })),
    limit: Schema.optional(Schema.Int.pipe(Schema.between(1, EVENTS_PAGE_MAX)).annotations({
      description: `At most this many events (1 to ${EVENTS_PAGE_MAX}, default ${EVENTS_PAGE_DEFAULT}).`
    }))
  }),
  output: RunEventsPage,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  handler: ({ run_id, since_seq, limit }) => Effect.flatMap(Runs, (runs) => runs.events(run_id, since_seq ?? 0, limit ?? EVENTS_PAGE_DEFAULT))
})
