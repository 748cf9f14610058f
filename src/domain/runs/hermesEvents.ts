/**
 * Hermes's run-event vocabulary, in one place: each event the bridge acts on as a Schema, the
 * union the SSE edge (`hermes/client/sse.ts`) decodes every frame with, once, the names of the
 * terminal events, and (in `view.ts`) the run statuses, which are Hermes's and the bridge's alike.
 * Past the edge, code reads an event's fields by its name, typed, and never from `unknown`.
 *
 * Lenient as Hermes is: fields the bridge does not read are kept (pass-through events are stored
 * as they came), fields it reads may be absent. A frame naming a known event with a field of the
 * wrong type is not an event of that name and does not decode (the edge drops it, logged).
 */
import { Schema } from "effect"

/** Everything else in the frame (`run_id`, `timestamp`, fields of newer builds), kept as it came. */
const Rest = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const opt = <S extends Schema.Schema.Any>(s: S) => Schema.optional(s)
const Str = opt(Schema.String)
const Strings = Schema.Array(Schema.String)

const event = <N extends string, F extends Schema.Struct.Fields>(name: N, fields: F) =>
  Schema.Struct({ event: Schema.Literal(name), ...fields }, Rest)

export const MessageDelta = event("message.delta", { delta: Schema.String })
export const ApprovalRequest = event("approval.request", {
  /** Absent on Hermes 0.20, which holds one approval at a time per run. */
  request_id: Str,
  command: Str,
  description: Str,
  choices: opt(Strings)
})
export const ApprovalResponded = event("approval.responded", { request_id: Str, choice: Str })
export const ClarifyRequest = event("clarify.request", {
  clarify_id: Str,
  request_id: Str,
  question: Str,
  choices: opt(Schema.NullOr(Strings)),
  multi_select: opt(Schema.Boolean)
})
export const ClarifyResponded = event("clarify.responded", { clarify_id: Str, request_id: Str })
export const ClarifyRetired = event("clarify.retired", { clarify_id: Str, request_id: Str })
export const RunCompleted = event("run.completed", {
  output: opt(Schema.NullOr(Schema.String)),
  usage: opt(Schema.NullOr(Rest)),
  pending_steer: opt(Schema.Unknown)
})
export const RunFailed = event("run.failed", { error: opt(Schema.NullOr(Schema.String)) })
export const RunInterrupted = event("run.interrupted", { error: opt(Schema.NullOr(Schema.String)) })
export const RunCancelled = event("run.cancelled", {})

const KNOWN = [
  MessageDelta, ApprovalRequest, ApprovalResponded, ClarifyRequest, ClarifyResponded, ClarifyRetired,
  RunCompleted, RunFailed, RunInterrupted, RunCancelled
] as const
const KNOWN_NAMES: ReadonlySet<string> = new Set(KNOWN.map((s) => s.fields.event.literals[0]))

/**
 * Any other event (`tool.started`, `reasoning.available`, `subagent.*`, names of newer builds):
 * its fields are stored or ignored as they came, never read. Its name is branded so that a check
 * of `event` against a known name narrows to that name's Schema.
 */
export const OtherEvent = Schema.Struct(
  {
    event: Schema.String.pipe(
      Schema.filter((name) => !KNOWN_NAMES.has(name), { message: () => "a known event name with fields of the wrong type" }),
      Schema.brand("OtherHermesEvent")
    )
  },
  Rest
)

/** The JSON object of one event frame. */
export const HermesEventData = Schema.Union(...KNOWN, OtherEvent)
export type HermesEventData = typeof HermesEventData.Type
export type KnownEventData = Schema.Schema.Type<(typeof KNOWN)[number]>

/**
 * True for an event the bridge reads the fields of; after it, a check of `event` narrows to that
 * event's fields (TypeScript cannot tell a branded other name from a known one by itself).
 */
export const isKnown = (data: HermesEventData): data is KnownEventData => KNOWN_NAMES.has(data.event)

/** The fields of `e` when it is the known event `name`, else null. */
export const fieldsOf = <N extends KnownEventData["event"]>(e: HermesEvent, name: N): Extract<KnownEventData, { readonly event: N }> | null =>
  isKnown(e.data) && e.data.event === name ? (e.data as Extract<KnownEventData, { readonly event: N }>) : null

/**
 * One Hermes event. `id` is the frame's `id:` (newer builds) or null (older builds, and events the
 * bridge synthesises from a status). `data` is the decoded frame, `event`, `run_id` and
 * `timestamp` included; `event` repeats `data.event`.
 */
export interface HermesEvent {
  readonly id: number | null
  readonly event: string
  readonly data: HermesEventData
}

/** Decodes one frame's JSON object; none when it is not an event the bridge can read. */
export const decodeEventData = Schema.decodeUnknownOption(HermesEventData)

/** An event from data the bridge built itself (synthesised from a status, or a test's). */
export const makeEvent = (id: number | null, data: HermesEventData): HermesEvent => ({ id, event: data.event, data })

export const TERMINAL_EVENTS: ReadonlySet<string> = new Set(["run.completed", "run.failed", "run.cancelled", "run.interrupted"])

export const isTerminalEvent = (name: string): boolean => TERMINAL_EVENTS.has(name)
