/**
 * From Hermes's event stream to the ledger (docs/REFERENCE.md): which events are kept, under which
 * type, with which data, and how each one moves the run's status and pending clarification.
 * `message.delta` chunks are coalesced into `message.text` events here, so a batch of Hermes events
 * becomes one ledger write. Pure: the follower feeds batches in and applies the result.
 */
import type { PendingClarification, RunStatus } from "./view.ts"
import { isTerminal } from "./view.ts"

/** A Hermes event as the follower sees it (the HermesClient's decoded SSE frame). */
export interface IncomingEvent {
  readonly id: number | null
  readonly event: string
  readonly data: { readonly [k: string]: unknown }
}

/** An event to append; the ledger assigns `seq` and `at`. */
export interface NewEvent {
  readonly type: string
  readonly data: Record<string, unknown>
}

/** A Hermes approval request the inbox must show. */
export interface ApprovalOpened {
  readonly request_id: string
  readonly command: string
  readonly description: string
  readonly choices: ReadonlyArray<string>
}

/** The part of a run's state the reducer needs and changes. */
export interface FollowState {
  readonly status: RunStatus
  readonly pending: PendingClarification | null
}

export interface BatchResult {
  readonly state: FollowState
  readonly events: ReadonlyArray<NewEvent>
  /** Streamed text to append to the stored output, in order. */
  readonly outputAppend: string
  /** The final output from `run.completed`, which replaces what was streamed. */
  readonly outputReplace: string | null
  readonly usage: Record<string, unknown> | null
  readonly error: string | null
  /** The last Hermes frame id seen in the batch (null: none carried one). */
  readonly hermesEventId: number | null
  /** Approval request ids Hermes resolved (responded, or denied by a timeout or stop). */
  readonly approvalsResolved: ReadonlyArray<string>
}

/** A `message.text` event holds at most about this many UTF-16 units before a flush. */
export const FLUSH_CHARS = 4096

/** `s` in pieces of at most `max` UTF-16 units, never splitting a surrogate pair. */
export const splitText = (s: string, max: number): ReadonlyArray<string> => {
  const pieces: Array<string> = []
  let i = 0
  while (i < s.length) {
    let end = Math.min(i + max, s.length)
    const last = s.charCodeAt(end - 1)
    if (end < s.length && end - i > 1 && last >= 0xd800 && last <= 0xdbff) end--
    pieces.push(s.slice(i, end))
    i = end
  }
  return pieces
}

const ENVELOPE = new Set(["event", "run_id", "timestamp"])

/** The event's own fields, without the SSE envelope. */
const payload = (e: IncomingEvent): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(e.data)) if (!ENVELOPE.has(k)) out[k] = v
  return out
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : null)
const strOr = (v: unknown, fallback: string): string => (typeof v === "string" ? v : fallback)
const strings = (v: unknown): ReadonlyArray<string> | null =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : null
const objectOrNull = (v: unknown): Record<string, unknown> | null =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null

/** The inbox's view of an `approval.request` (no `choices` means Hermes did not restrict them). */
export const approvalOf = (e: IncomingEvent): ApprovalOpened => ({
  request_id: strOr(e.data["request_id"], ""),
  command: strOr(e.data["command"], ""),
  description: strOr(e.data["description"], ""),
  choices: strings(e.data["choices"]) ?? []
})

/** Event types recorded as they come (data without the envelope). */
const PASS_THROUGH = new Set(["reasoning.available", "tool.started", "tool.completed", "run.steered"])

/** While stopping, only a terminal event changes the status. */
const resume = (status: RunStatus): RunStatus => (status === "stopping" ? "stopping" : "running")

/**
 * Applies one batch of Hermes events to the run's state. Deltas are concatenated and flushed as
 * `message.text` on size and before any other kept event; the caller flushes the rest at the end of
 * the batch (the batch boundary is the "short timer"). Events after a terminal one are ignored.
 */
export const reduceBatch = (initial: FollowState, batch: ReadonlyArray<IncomingEvent>): BatchResult => {
  let { status, pending } = initial
  const events: Array<NewEvent> = []
  const appended: Array<string> = []
  let buffer = ""
  let outputReplace: string | null = null
  let usage: Record<string, unknown> | null = null
  let error: string | null = null
  let hermesEventId: number | null = null
  const approvalsResolved: Array<string> = []

  /** Emits the buffered text; with `fullOnly`, keeps a last piece shorter than FLUSH_CHARS. */
  const flush = (fullOnly = false) => {
    const pieces = [...splitText(buffer, FLUSH_CHARS)]
    const last = pieces[pieces.length - 1]
    buffer = fullOnly && last !== undefined && last.length < FLUSH_CHARS - 1 ? (pieces.pop() ?? "") : ""
    for (const text of pieces) {
      events.push({ type: "message.text", data: { text } })
      appended.push(text)
    }
  }
  const push = (type: string, data: Record<string, unknown>) => {
    flush()
    events.push({ type, data })
  }

  for (const e of batch) {
    if (isTerminal(status)) break
    if (e.id !== null) hermesEventId = e.id
    if (status === "queued") status = "running"
    const type = e.event
    if (type === "message.delta") {
      const delta = str(e.data["delta"])
      if (delta !== null) buffer += delta
      if (buffer.length >= FLUSH_CHARS) flush(true)
    } else if (PASS_THROUGH.has(type) || type.startsWith("subagent.")) {
      push(type, payload(e))
    } else if (type === "approval.request") {
      // The inbox row is opened by the follower before this batch is committed (see approvalOf).
      if (status !== "stopping") status = "waiting_for_approval"
      push(type, payload(e))
    } else if (type === "approval.responded") {
      const data = payload(e)
      const requestId = str(data["request_id"])
      if (requestId !== null) approvalsResolved.push(requestId)
      if (status === "waiting_for_approval") status = "running"
      push(type, data)
    } else if (type === "clarify.request") {
      const data = payload(e)
      const requestId = strOr(data["clarify_id"], strOr(data["request_id"], ""))
      // A stopping run will not wait for the answer: the question is recorded, not made pending.
      if (status !== "stopping") {
        pending = {
          request_id: requestId,
          kind: "clarification",
          question: strOr(data["question"], ""),
          choices: strings(data["choices"]),
          multi_select: data["multi_select"] === true
        }
        status = "waiting_for_clarification"
      }
      push("clarify.request", { ...data, request_id: requestId })
    } else if (type === "clarify.responded" || type === "clarify.retired") {
      const data = payload(e)
      const requestId = strOr(data["clarify_id"], strOr(data["request_id"], ""))
      // An answer the bridge forwarded is already recorded (agent_run_answer); skip the echo.
      if (pending !== null && pending.request_id === requestId) {
        pending = null
        status = resume(status)
        const { clarify_id: _id, ...rest } = data
        push("clarify.answered", { ...rest, request_id: requestId, via: type === "clarify.retired" ? "retired" : "hermes" })
      }
    } else if (type === "run.completed") {
      const data = payload(e)
      const output = str(data["output"])
      if (output !== null) {
        flush()
        outputReplace = output
        appended.length = 0
      }
      usage = objectOrNull(data["usage"])
      const extra = data["pending_steer"] === undefined ? {} : { pending_steer: data["pending_steer"] }
      push("run.completed", { usage, ...extra })
      status = "completed"
    } else if (type === "run.failed" || type === "run.interrupted") {
      const data = payload(e)
      error = strOr(data["error"], type === "run.failed" ? "the run failed" : "the run was interrupted")
      push(type, { error })
      status = type === "run.failed" ? "failed" : "interrupted"
    } else if (type === "run.cancelled") {
      push(type, {})
      status = "cancelled"
    }
    // Anything else (reasoning.delta, keepalive-like noise, unknown types) is not kept.
  }
  flush()
  if (isTerminal(status)) pending = null

  return {
    state: { status, pending },
    events,
    outputAppend: outputReplace === null ? appended.join("") : "",
    outputReplace,
    usage,
    error,
    hermesEventId,
    approvalsResolved
  }
}
