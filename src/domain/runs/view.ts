/**
 * The wire shapes of runs as remote agents see them (docs/REFERENCE.md). These
 * Schemas are the tools' output schemas and the encoders of their structured results.
 */
import { Schema } from "effect"

export const RunStatus = Schema.Literal(
  "queued", "running", "waiting_for_approval", "waiting_for_clarification", "stopping",
  "completed", "failed", "cancelled", "interrupted"
)
export type RunStatus = typeof RunStatus.Type
export const TERMINAL_STATUSES: ReadonlySet<RunStatus> = new Set(["completed", "failed", "cancelled", "interrupted"])
export const isTerminal = (s: RunStatus): boolean => TERMINAL_STATUSES.has(s)

const Int = Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))
const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const PendingClarification = Schema.Struct({
  request_id: Schema.String,
  kind: Schema.Literal("clarification"),
  question: Schema.String,
  choices: Schema.NullOr(Schema.Array(Schema.String)),
  multi_select: Schema.Boolean
})
export type PendingClarification = typeof PendingClarification.Type

/**
 * `pending` while the run waits on the operator: what it waits on (the redacted command, since
 * when), for the calling agent to tell its user. Only the operator answers it, in the inbox;
 * `agent_run_answer` on it is `bridge.no_pending_request`.
 */
export const PendingApproval = Schema.Struct({
  request_id: Schema.String,
  kind: Schema.Literal("approval"),
  command: Schema.String,
  description: Schema.String,
  since: Schema.String
})
export type PendingApproval = typeof PendingApproval.Type

export const AwaitingApproval = Schema.Struct({
  approval_id: Schema.String,
  command: Schema.String,
  description: Schema.String,
  since: Schema.String
})

/** Fields every run view shares (the list item replaces `output` with `output_preview`). */
const base = {
  run_id: Schema.String,
  agent: Schema.String,
  profile: Schema.String,
  client: Schema.String,
  status: RunStatus,
  created_at: Schema.String,
  updated_at: Schema.String,
  input_preview: Schema.String,
  error: Schema.NullOr(Schema.String),
  usage: Schema.NullOr(JsonObject),
  pending: Schema.Union(PendingClarification, PendingApproval, Schema.Null),
  last_seq: Int,
  truncated: Schema.optional(Schema.Boolean),
  awaiting_approval: Schema.optional(AwaitingApproval),
  /** The `session_key` the run was started with (absent when none): an A2A task's `contextId`. */
  session_key: Schema.optional(Schema.String)
}

export const RunView = Schema.Struct({
  ...base,
  output: Schema.NullOr(Schema.String),
  output_offset: Int,
  output_total: Int,
  next_offset: Schema.NullOr(Int),
  more: Schema.optional(Schema.String),
  /** A `queued` run's place in its profile's queue for Hermes's capacity (1: next). */
  queue_position: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)))
})
export type RunView = typeof RunView.Type

export const RunEvent = Schema.Struct({
  seq: Int,
  type: Schema.String,
  at: Schema.String,
  data: JsonObject,
  truncated: Schema.optional(Schema.Boolean)
})
export type RunEvent = typeof RunEvent.Type

export const RunWaitView = Schema.Struct({
  ...RunView.fields,
  events_tail: Schema.Array(RunEvent),
  timed_out: Schema.Boolean
})
export type RunWaitView = typeof RunWaitView.Type

export const RunEventsPage = Schema.Struct({
  run_id: Schema.String,
  events: Schema.Array(RunEvent),
  last_seq: Int
})
export type RunEventsPage = typeof RunEventsPage.Type

export const RunListItem = Schema.Struct({ ...base, output_preview: Schema.NullOr(Schema.String) })
export type RunListItem = typeof RunListItem.Type

export const RunList = Schema.Struct({ runs: Schema.Array(RunListItem) })
export type RunList = typeof RunList.Type
