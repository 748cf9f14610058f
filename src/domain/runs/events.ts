/**
 * From Hermes's event stream to the ledger (docs/REFERENCE.md): which events are kept, under which
 * type, with which data, and how each one moves the run's status and pending clarification.
 * `message.delta` chunks are coalesced into `message.text` events here, so a batch of Hermes events
 * becomes one ledger write. Pure: the follower feeds batches in and applies the result.
 */
import { type ApprovalRequest, type HermesEvent, type HermesEventData, isKnown } from "./hermesEvents.ts"
import type { PendingClarification, RunStatus } from "./view.ts"
import { isTerminal } from "./view.ts"


/** An event to append; the ledger assigns `seq` and `at`. */
export interface NewEvent {
  readonly type: string
  readonly data: Record<string, unknown>
}

/** A Hermes approval request the inbox must show. */
export interface ApprovalOpened {
  /** Null when Hermes gave none (Hermes 0.20 names no request: one approval at a time per run). */
  readonly request_id: string | null
  readonly command: string
  readonly description: string
  /** Hermes's name for the rule that asked (`recursive_delete`), for the log; null when it sent none. */
  readonly pattern_key: string | null
  readonly choices: ReadonlyArray<string>
}

/** An approval Hermes reported resolved (`approval.responded`). */
export interface ApprovalResolved {
  /** Null: a response naming no request, which resolves whatever the run had pending. */
  readonly request_id: string | null
  /** The choice Hermes took; null when it did not say (an event inferred from a status). */
  readonly choice: string | null
  /** The event was inferred from Hermes's status, not sent by Hermes. */
  readonly inferred: boolean
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
  /** Approval requests Hermes resolved (responded, or denied by a timeout or stop), in order. */
  readonly approvalsResolved: ReadonlyArray<ApprovalResolved>
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
/**
 * Builds that number their frames (`id: N`) repeat that number inside the data as `seq`: part of
 * the envelope there, and never kept beside the bridge's own `seq` of the stored event.
 */
const NUMBERED_ENVELOPE = new Set([...ENVELOPE, "seq"])

/** The event's own fields, without the SSE envelope. */
const payloadOf = (data: HermesEventData, numbered: boolean): Record<string, unknown> => {
  const envelope = numbered ? NUMBERED_ENVELOPE : ENVELOPE
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(data)) if (!envelope.has(k)) out[k] = v
  return out
}

type ApprovalRequestData = typeof ApprovalRequest.Type

/** The inbox's view of an `approval.request` (no `choices` means Hermes did not restrict them). */
export const approvalOf = (data: ApprovalRequestData): ApprovalOpened => ({
  request_id: data.request_id ?? null,
  command: data.command ?? "",
  description: data.description ?? "",
  // Read from the fields kept as they came, not from the event's Schema: a frame whose pattern_key
  // is not a string still opens its row (it is only logged).
  pattern_key: typeof data.pattern_key === "string" ? data.pattern_key : null,
  choices: data.choices ?? []
})

/** Event types recorded as they come (data without the envelope). */
const PASS_THROUGH = new Set(["reasoning.available", "tool.started", "tool.completed", "run.steered"])

/** While stopping, only a terminal event changes the status. */
const resume = (status: RunStatus): RunStatus => (status === "stopping" ? "stopping" : "running")

/**
 * Applies one batch of Hermes events to the run's state. Deltas are concatenated and flushed as
 * `message.text` on size and before any other kept event; the caller flushes the rest at the end of
 * the batch (the batch boundary is the "short timer"). Events after a terminal one are ignored.
 * Every field is read typed: the events were decoded once, at the SSE edge.
 */
export const reduceBatch = (initial: FollowState, batch: ReadonlyArray<HermesEvent>): BatchResult => {
  let { status, pending } = initial
  const events: Array<NewEvent> = []
  const appended: Array<string> = []
  let buffer = ""
  let outputReplace: string | null = null
  let usage: Record<string, unknown> | null = null
  let error: string | null = null
  let hermesEventId: number | null = null
  const approvalsResolved: Array<ApprovalResolved> = []

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
    const d = e.data
    const payload = (data: HermesEventData) => payloadOf(data, e.id !== null)
    if (!isKnown(d)) {
      // Stored as they came: tool and reasoning events, steer confirmations, sub-agents. Anything
      // else (reasoning.delta, names of newer builds) is not kept.
      if (PASS_THROUGH.has(d.event) || d.event.startsWith("subagent.")) push(d.event, payload(d))
      continue
    }
    switch (d.event) {
      case "message.delta":
        buffer += d.delta
        if (buffer.length >= FLUSH_CHARS) flush(true)
        break
      case "approval.request":
        // The inbox row is opened by the follower before this batch is committed (see approvalOf).
        if (status !== "stopping") status = "waiting_for_approval"
        push(d.event, payload(d))
        break
      case "approval.responded":
        approvalsResolved.push({ request_id: d.request_id ?? null, choice: d.choice ?? null, inferred: d["synthetic"] === true })
        if (status === "waiting_for_approval") status = "running"
        push(d.event, payload(d))
        break
      case "clarify.request": {
        const requestId = d.clarify_id ?? d.request_id ?? ""
        // A stopping run will not wait for the answer: the question is recorded, not made pending.
        if (status !== "stopping") {
          pending = {
            request_id: requestId,
            kind: "clarification",
            question: d.question ?? "",
            choices: d.choices ?? null,
            multi_select: d.multi_select === true
          }
          status = "waiting_for_clarification"
        }
        push("clarify.request", { ...payload(d), request_id: requestId })
        break
      }
      case "clarify.responded":
      case "clarify.retired": {
        const requestId = d.clarify_id ?? d.request_id ?? ""
        // An answer the bridge forwarded is already recorded (agent_run_answer); skip the echo.
        if (pending !== null && pending.request_id === requestId) {
          pending = null
          status = resume(status)
          const { clarify_id: _id, ...rest } = payload(d)
          push("clarify.answered", { ...rest, request_id: requestId, via: d.event === "clarify.retired" ? "retired" : "hermes" })
        }
        break
      }
      case "run.completed": {
        const output = d.output ?? null
        if (output !== null) {
          flush()
          outputReplace = output
          appended.length = 0
        }
        usage = d.usage ?? null
        push("run.completed", { usage, ...(d.pending_steer === undefined ? {} : { pending_steer: d.pending_steer }) })
        status = "completed"
        break
      }
      case "run.failed":
      case "run.interrupted":
        error = d.error ?? (d.event === "run.failed" ? "the run failed" : "the run was interrupted")
        push(d.event, { error })
        status = d.event === "run.failed" ? "failed" : "interrupted"
        break
      case "run.cancelled":
        push(d.event, {})
        status = "cancelled"
        break
    }
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
