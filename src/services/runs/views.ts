/**
 * What a remote agent sees of a run: the run view with its output window, list items with previews,
 * events pages and a wait's tail. Every text passes through the Redactor here, on the way out; the
 * ledger holds raw text. Consecutive `message.text` events are masked as one text with stored context
 * on each side, and text at the live edge of an unfinished run has a trailing token prefix masked.
 */
import { Effect, Option } from "effect"
import { iso } from "../../common/time.ts"
import type { AwaitingApproval, PendingApproval, PendingClarification, RunEvent, RunEventsPage, RunListItem, RunView } from "../../domain/runs/view.ts"
import { isTerminal } from "../../domain/runs/view.ts"
import { queuePlace } from "../../domain/runs/queuePlace.ts"
import { CONTEXT_BYTES, CONTEXT_CHARS, cutJsonStrings, cutUtf8, firstChars, lastChars, type OutputWindow, outputWindow } from "../../domain/runs/window.ts"
import type { BridgeError } from "../../domain/errors.ts"
import { BLOCK_REACH, mayContinueBlock } from "../../domain/redact/reach.ts"
import type { InboxShape } from "../inbox/Inbox.ts"
import type { RedactorShape } from "../../common/Redactor.ts"
import type { LedgerError, LedgerShape, RunRecord, StoredEvent } from "./Ledger.ts"
import { PREVIEW_CHARS, TAIL_EVENTS, WINDOW_BYTES } from "../../domain/limits.ts"

const TEXT = "message.text"
/** Rows fetched per step while collecting text context around a page. */
const CONTEXT_STEP = 32
/** Finished runs' views kept for reuse (each at most a 16 KiB window and a few cut texts). */
const FINISHED_VIEWS_KEPT = 64

/** Kept here for the console and CLI formatters that import it with the views. */
export { iso }

const textOf = (e: StoredEvent): string => (typeof e.data["text"] === "string" ? e.data["text"] : "")

export interface ViewDeps {
  readonly ledger: LedgerShape
  readonly redactor: RedactorShape
  readonly inbox: InboxShape
}

type ViewError = LedgerError | BridgeError
/** What a run waiting on the operator shows as `awaiting_approval`. */
type Approval = typeof AwaitingApproval.Type

export const makeViews = ({ ledger, redactor, inbox }: ViewDeps) => {
  /** Redacted first, cut after, so a cut never leaves half a secret unmasked. */
  const safeText = (s: string | null) => {
    if (s === null) return { text: null, truncated: false }
    return cutUtf8(redactor.text(s))
  }

  const pendingView = (p: PendingClarification | null) => {
    if (p === null) return { pending: null, truncated: false }
    const masked = redactor.json(p)
    const cut = cutJsonStrings(masked)
    return { pending: cut.value, truncated: cut.truncated }
  }

  const inputPreview = (input: string) => firstChars(redactor.text(firstChars(input, PREVIEW_CHARS + CONTEXT_CHARS)), PREVIEW_CHARS)

  const awaitingApproval = (r: RunRecord): Effect.Effect<Option.Option<Approval>, ViewError> =>
    r.status !== "waiting_for_approval"
      ? Effect.succeed(Option.none())
      : inbox.pendingRunApproval(r.runId).pipe(
          Effect.map(Option.map((row) => ({
            approval_id: row.id,
            command: cutUtf8(redactor.text(row.command)).text,
            description: cutUtf8(redactor.text(row.description)).text,
            since: row.created_at
          })))
        )

  const approvalPending = (a: Approval): PendingApproval => ({
    request_id: a.approval_id,
    kind: "approval",
    command: a.command,
    description: a.description,
    since: a.since
  })

  /** The key as the client gave it (stored as `<client>:<key>`). */
  const unprefixed = (client: string, key: string) => (key.startsWith(`${client}:`) ? key.slice(client.length + 1) : key)

  /** Fields every view shares (synchronous: every text masked here); `truncated` reports a cut in them. */
  const baseFields = (r: RunRecord, approval: Option.Option<Approval>) => {
    const error = safeText(r.error)
    const pending = pendingView(r.pending)
    // An approval wait has no clarification pending: `pending` then says what the run waits on.
    const shownPending = pending.pending === null && Option.isSome(approval) ? approvalPending(approval.value) : pending.pending
    return {
      fields: {
        run_id: r.runId,
        agent: r.agent,
        profile: r.profile,
        client: r.client,
        status: r.status,
        created_at: iso(r.createdAt),
        updated_at: iso(r.updatedAt),
        input_preview: inputPreview(r.input),
        error: error.text,
        usage: r.usage === null ? null : redactor.json(r.usage),
        pending: shownPending,
        last_seq: r.lastSeq,
        ...(Option.isSome(approval) ? { awaiting_approval: approval.value } : {}),
        ...(r.sessionKey === null ? {} : { session_key: unprefixed(r.client, r.sessionKey) })
      },
      truncated: error.truncated || pending.truncated
    }
  }

  const base = (r: RunRecord) => Effect.map(awaitingApproval(r), (approval) => baseFields(r, approval))

  /** No output yet is `null` until the run completes (a completed run with no text has ""). */
  const hasNoOutput = (r: RunRecord) => r.outputBytes === 0 && r.status !== "completed"

  /** The stored output around the 16 KiB window at byte `offset` (raw: `render` masks it). */
  const readWindow = (r: RunRecord, offset: number) =>
    Effect.gen(function* () {
      const window = (beforeBytes: number) =>
        r.outputBytes === 0 || offset >= r.outputBytes
          ? Effect.succeed(outputWindow({ base: 0, bytes: new Uint8Array(), total: r.outputBytes }, offset))
          : ledger.outputSlice(r.runId, Math.max(0, offset - beforeBytes), offset + WINDOW_BYTES + CONTEXT_BYTES, r.outputBytes).pipe(
              Effect.map((slice) => outputWindow(slice, offset, beforeBytes))
            )
      const near = yield* window(CONTEXT_BYTES)
      // A window that may start inside a long multi-line secret reads back to where it began.
      return near.before.length >= CONTEXT_CHARS && mayContinueBlock(near.before) ? yield* window(BLOCK_REACH) : near
    })

  /** The run view from what was read (synchronous: every text is masked here). */
  const render = (r: RunRecord, approval: Option.Option<Approval>, w: OutputWindow): RunView => {
    const { fields, truncated } = baseFields(r, approval)
    const liveEdge = !isTerminal(r.status) && w.nextOffset === null
    const output = hasNoOutput(r) ? null : (redactor.segments([w.text], { before: w.before, after: w.after, liveEdge })[0] ?? "")
    const more = w.nextOffset === null ? {} : { more: `agent_run_status(run_id="${r.runId}", offset=${w.nextOffset})` }
    return {
      ...fields,
      output,
      output_offset: w.offset,
      output_total: w.total,
      next_offset: w.nextOffset,
      ...(truncated || w.nextOffset !== null ? { truncated: true } : {}),
      ...more
    }
  }

  /**
   * Finished runs' views, reused. A finished run's record and output no longer change (retention
   * deletes the run whole, and the caller has just read its record), so a window's view is the same
   * on every read while the Redactor's mask list stands: a client polling a finished run costs one
   * record read, not an output read and the masking of 16 KiB with its context. The key carries the
   * record's stamp too, so a view is never reused across a commit.
   */
  const finished = redactor.memo<RunView>(FINISHED_VIEWS_KEPT)
  const finishedKey = (r: RunRecord, offset: number) => [r.runId, offset, r.status, r.updatedAt, r.lastSeq, r.outputBytes].join("\u0000")

  /** The run view with the 16 KiB output window at byte `offset`. */
  const runView = (r: RunRecord, offset: number): Effect.Effect<RunView, ViewError> => {
    if (!isTerminal(r.status)) {
      return Effect.gen(function* () {
        const approval = yield* awaitingApproval(r)
        const view = render(r, approval, yield* readWindow(r, offset))
        if (r.status !== "queued") return view
        // Its place in the profile's queue (admission.ts's order); gone from it by now: none.
        const place = queuePlace(yield* ledger.queuedOf(r.profile), r.runId)
        return place === null ? view : { ...view, queue_position: place }
      })
    }
    return Effect.suspend(() => {
      const key = finishedKey(r, offset)
      const kept = finished.get(key)
      if (kept !== undefined) return Effect.succeed(kept)
      return Effect.map(readWindow(r, offset), (w) => finished.make(key, () => render(r, Option.none(), w)))
    })
  }

  const listItem = (r: RunRecord): Effect.Effect<RunListItem, ViewError> =>
    Effect.gen(function* () {
      const { fields, truncated } = yield* base(r)
      // The head holds the preview plus context; it is the whole output when it is that short.
      const headIsAll = r.outputBytes === Buffer.byteLength(r.outputHead, "utf8")
      const liveEdge = !isTerminal(r.status) && headIsAll
      const preview = hasNoOutput(r) ? null : firstChars(redactor.text(r.outputHead, { liveEdge }), PREVIEW_CHARS)
      return { ...fields, output_preview: preview, ...(truncated ? { truncated: true } : {}) }
    })

  /**
   * Stored `message.text` next to a page, up to CONTEXT_CHARS (further while it may hold a block
   * that started before, see `contextReach`), walking away from the page. Other events are stepped
   * over: the run's streamed text is one text whatever sits between its pieces (a steer, a tool
   * event, an approval), so a secret cut by one is still seen whole. `reachedEnd`: the walk forwards
   * found no more text up to the newest event.
   */
  const textContext = (runId: string, from: number, direction: "before" | "after") =>
    Effect.gen(function* () {
      const parts: Array<string> = []
      let chars = 0
      // Backwards, all text so far is block characters: it may lie inside a block begun earlier.
      let inBlock = direction === "before"
      let cursor = from
      for (;;) {
        const rows = direction === "before"
          ? yield* ledger.eventsBefore(runId, cursor, CONTEXT_STEP)
          : yield* ledger.eventsAfter(runId, cursor, CONTEXT_STEP)
        for (const e of rows) {
          cursor = e.seq
          if (e.type !== TEXT) continue
          const text = textOf(e)
          parts.push(text)
          chars += text.length
          inBlock &&= mayContinueBlock(text)
          if (chars >= (inBlock ? BLOCK_REACH : CONTEXT_CHARS)) return { text: join(parts, direction), reachedEnd: false }
        }
        if (rows.length < CONTEXT_STEP) return { text: join(parts, direction), reachedEnd: true }
      }
    })
  const join = (parts: ReadonlyArray<string>, direction: "before" | "after") =>
    direction === "before" ? lastChars([...parts].reverse().join(""), BLOCK_REACH) : firstChars(parts.join(""), CONTEXT_CHARS)

  /**
   * Redacts and cuts a page of events. `liveEdge`: the page's last text runs to the newest stored
   * event of an unfinished run (decided by the caller or found by the forward walk).
   */
  const eventsOut = (r: RunRecord, events: ReadonlyArray<StoredEvent>, atNewest: boolean): Effect.Effect<ReadonlyArray<RunEvent>, ViewError> =>
    Effect.gen(function* () {
      const first = events[0]
      const last = events[events.length - 1]
      if (first === undefined || last === undefined) return []
      // Every text of the page is one text with the stored text before and after it, whatever
      // other events stand between the pieces.
      const group = events.filter((e) => e.type === TEXT)
      const texts = new Map<number, string>()
      if (group.length > 0) {
        const before = yield* textContext(r.runId, first.seq, "before")
        const after = atNewest ? { text: "", reachedEnd: true } : yield* textContext(r.runId, last.seq, "after")
        const masked = redactor.segments(group.map(textOf), {
          before: before.text,
          after: after.text,
          liveEdge: !isTerminal(r.status) && after.reachedEnd
        })
        group.forEach((e, k) => texts.set(e.seq, masked[k] ?? ""))
      }
      return events.map((e) => {
        const masked = e.type === TEXT ? { ...e.data, text: texts.get(e.seq) ?? "" } : redactor.json(e.data)
        const cut = cutJsonStrings(masked)
        return { seq: e.seq, type: e.type, at: iso(e.at), data: cut.value, ...(cut.truncated ? { truncated: true } : {}) }
      })
    })

  const eventsPage = (r: RunRecord, sinceSeq: number, limit: number): Effect.Effect<RunEventsPage, ViewError> =>
    Effect.gen(function* () {
      const events = yield* ledger.eventsAfter(r.runId, sinceSeq, limit)
      const newest = events[events.length - 1]
      const page = yield* eventsOut(r, events, newest !== undefined && newest.seq >= r.lastSeq)
      return { run_id: r.runId, events: page, last_seq: newest?.seq ?? Math.min(sinceSeq, r.lastSeq) }
    })

  /** The newest TAIL_EVENTS events, oldest first (a wait's `events_tail`: always at the live edge). */
  const tail = (r: RunRecord) =>
    ledger.eventsBefore(r.runId, r.lastSeq + 1, TAIL_EVENTS).pipe(Effect.flatMap((rows) => eventsOut(r, [...rows].reverse(), true)))

  return { runView, listItem, eventsPage, tail }
}

export type Views = ReturnType<typeof makeViews>
