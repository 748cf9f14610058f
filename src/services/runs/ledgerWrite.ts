/**
 * What one ledger write means, decided once above every SQL driver: the numbering of appended
 * events, the cap on events kept (EVENTS_KEPT), the output's chunking (OUTPUT_CHUNK_BYTES, on
 * character boundaries), the list-preview head, what a stop or an answer asked of Hermes stored in
 * place of Hermes's own events of it (`withAsked`), the run's new record, and the record a start
 * inserts (`newRecord`). A driver only stores the plan this returns (`LedgerSql.ts`, on both
 * dialects), so a dialect cannot number or cap differently.
 */
import { EVENTS_KEPT, PREVIEW_CHARS, WINDOW_BYTES } from "../../domain/limits.ts"
import { isTerminal } from "../../domain/runs/view.ts"
import { boundaryAtOrBefore, CONTEXT_CHARS, firstChars, fromUtf8, utf8, utf8Length } from "../../domain/runs/window.ts"
import type { NewEvent } from "../../domain/runs/events.ts"
import type { NewRun, RunChange, RunRecord, RunWritten, StoredEvent } from "./Ledger.ts"

/** Characters of output kept on the run row for list previews (preview plus redaction context). */
export const OUTPUT_HEAD_CHARS = PREVIEW_CHARS + CONTEXT_CHARS
/** Stored output chunks hold at most this many bytes, so a window read touches few rows. */
export const OUTPUT_CHUNK_BYTES = WINDOW_BYTES

export interface OutputChunk {
  readonly startByte: number
  readonly endByte: number
  readonly text: string
}

/** `text` in chunks of at most OUTPUT_CHUNK_BYTES of UTF-8 from byte `startByte`, each ending on a character boundary. */
export const chunkOutput = (text: string, startByte: number): ReadonlyArray<OutputChunk> => {
  const bytes = utf8(text)
  const chunks: Array<OutputChunk> = []
  let at = 0
  while (at < bytes.length) {
    const end = at + OUTPUT_CHUNK_BYTES >= bytes.length ? bytes.length : boundaryAtOrBefore(bytes, at + OUTPUT_CHUNK_BYTES)
    chunks.push({ startByte: startByte + at, endByte: startByte + end, text: fromUtf8(bytes.subarray(at, end)) })
    at = end
  }
  return chunks
}

/** What a run's writes fill in, as a start records it: nothing yet. */
const UNWRITTEN: Omit<Pick<RunRecord, RunWritten>, "createdAt" | "updatedAt"> = {
  error: null, usage: null, pending: null, lastSeq: 0, outputBytes: 0, outputHead: "", hermesEventId: null, endedAt: null, stopAsked: null, answerAsked: null, version: 0
}

/** The record a start inserts at `now`: the start's fields, the rest empty (its first event is a write after). */
export const newRecord = (run: NewRun, now: number): RunRecord => {
  const { started: _started, maxActive: _maxActive, maxQueued: _maxQueued, ...given } = run
  return { ...given, ...UNWRITTEN, createdAt: now, updatedAt: now }
}

/** True when the change would write nothing. */
export const isEmptyChange = (c: RunChange): boolean =>
  (c.events === undefined || c.events.length === 0) &&
  c.status === undefined && c.pending === undefined && c.error === undefined && c.usage === undefined &&
  (c.outputAppend === undefined || c.outputAppend.length === 0) &&
  (c.outputReplace === undefined || c.outputReplace === null) &&
  (c.hermesEventId === undefined || c.hermesEventId === null) &&
  c.hermesRunId === undefined && c.stopAsked === undefined && c.answerAsked === undefined

/**
 * Whether the stored output must be read to know if `outputReplace` changes it: only when it has
 * the same length (a different length is a different text without reading anything).
 */
export const replaceNeedsStoredOutput = (current: RunRecord, change: RunChange): boolean =>
  change.outputReplace !== undefined && change.outputReplace !== null && utf8Length(change.outputReplace) === current.outputBytes

export interface WritePlan {
  /** The appended events, numbered after the run's last seq. */
  readonly events: ReadonlyArray<StoredEvent>
  /** Delete the run's events with seq ≤ this (the cap), or null. */
  readonly dropEventsThrough: number | null
  /** Delete the whole stored output first (a replacement). */
  readonly clearOutput: boolean
  /** Output chunks to insert, in order. */
  readonly chunks: ReadonlyArray<OutputChunk>
  /** The run's row after the write. */
  readonly next: RunRecord
}

/**
 * `events` with what a control asked of Hermes in their place (`RunRecord.stopAsked`,
 * `answerAsked`). A stop or an answer stores what it will record before it asks Hermes, and
 * records it once Hermes accepts; a run's permit (`runLocks.ts`) keeps that record before
 * Hermes's own events of it only within one process, and a follower in another (a replica) may
 * store them first: Hermes's `run.cancelled` (after which nothing is stored), or its echo of the
 * answer (`clarify.answered` via hermes, which carries no answer). So whichever writer stores them
 * stores the control's record: the stop's `run.stopping` before the cancellation (unless it is
 * recorded already), the client's `clarify.answered` for Hermes's echo of the same request.
 */
const withAsked = (current: RunRecord, events: ReadonlyArray<NewEvent>): ReadonlyArray<NewEvent> => {
  if (isTerminal(current.status) || events.length === 0) return events
  let out = events
  const answer = current.answerAsked
  // Only a client's record stands for the echo: two answers on their way leave the request's id alone.
  if (answer !== null && answer["via"] === "client") {
    out = out.map((e) =>
      e.type === "clarify.answered" && e.data["via"] === "hermes" && e.data["request_id"] === answer["request_id"] ? { type: e.type, data: { ...answer } } : e
    )
  }
  const stop = current.stopAsked
  if (stop === null || current.status === "stopping") return out
  const cancelled = out.findIndex((e) => e.type === "run.cancelled")
  if (cancelled < 0 || out.slice(0, cancelled).some((e) => e.type === "run.stopping")) return out
  return [...out.slice(0, cancelled), { type: "run.stopping", data: { ...stop } }, ...out.slice(cancelled)]
}

/**
 * The plan of applying `change` to `current` at `now`. `storedOutput` is the stored output when
 * `replaceNeedsStoredOutput` said it is needed (else ignored): a replacement equal to it writes no output.
 */
export const planWrite = (current: RunRecord, change: RunChange, now: number, storedOutput: string | null): WritePlan => {
  const events: Array<StoredEvent> = []
  let seq = current.lastSeq
  for (const e of withAsked(current, change.events ?? [])) {
    seq += 1
    events.push({ seq, type: e.type, at: now, data: e.data })
  }
  const dropEventsThrough = seq > EVENTS_KEPT && seq !== current.lastSeq ? seq - EVENTS_KEPT : null

  let outputBytes = current.outputBytes
  let outputHead = current.outputHead
  let clearOutput = false
  const chunks: Array<OutputChunk> = []
  const replace = change.outputReplace
  if (replace !== undefined && replace !== null && !(replaceNeedsStoredOutput(current, change) && storedOutput === replace)) {
    clearOutput = true
    chunks.push(...chunkOutput(replace, 0))
    outputBytes = utf8Length(replace)
    outputHead = firstChars(replace, OUTPUT_HEAD_CHARS)
  }
  const append = change.outputAppend ?? ""
  if (append.length > 0) {
    // The head grows only while it is the whole output; once cut, it is complete.
    if (outputBytes === utf8Length(outputHead)) outputHead = firstChars(outputHead + append, OUTPUT_HEAD_CHARS)
    chunks.push(...chunkOutput(append, outputBytes))
    outputBytes += utf8Length(append)
  }

  const status = change.status ?? current.status
  const next: RunRecord = {
    ...current,
    status,
    pending: change.pending === undefined ? current.pending : change.pending,
    error: change.error === undefined ? current.error : change.error,
    usage: change.usage === undefined ? current.usage : change.usage,
    hermesEventId: change.hermesEventId === undefined || change.hermesEventId === null ? current.hermesEventId : change.hermesEventId,
    hermesRunId: change.hermesRunId ?? current.hermesRunId,
    lastSeq: seq,
    outputBytes,
    outputHead,
    updatedAt: now,
    endedAt: current.endedAt ?? (isTerminal(status) ? now : null),
    // Once the run has ended nothing is being asked of Hermes any more.
    stopAsked: isTerminal(status) ? null : change.stopAsked === undefined ? current.stopAsked : change.stopAsked,
    answerAsked: isTerminal(status) ? null : change.answerAsked === undefined ? current.answerAsked : change.answerAsked,
    version: current.version + 1
  }
  return { events, dropEventsThrough, clearOutput, chunks, next }
}
