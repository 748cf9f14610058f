/**
 * Following one run to its end across dropped connections (HermesClient.follow):
 * - read the event stream; on a drop, reconnect with backoff, sending `Last-Event-ID` once Hermes
 *   has numbered its frames (newer builds replay what was missed; replays already seen are dropped);
 * - on a 404 from the events route (an older build answers 404 to any second subscriber, and a
 *   run whose buffer is gone is 404 too), poll `GET /v1/runs/{id}` instead: pending approvals and
 *   clarifications become `approval.request` / `clarify.request` (once per request id), one that is
 *   no longer pending becomes `approval.responded` / `clarify.responded`, and a
 *   terminal status becomes the terminal event, with the full output (and, when the streamed text
 *   is a prefix of it, a `message.delta` carrying the missed tail first);
 * - a status 404 means Hermes no longer knows the run: a synthesised `run.interrupted` says so.
 * Synthesised events have `id: null` and `synthetic: true` in their data.
 */
import { Duration, Effect, Either, Mailbox, Schedule, Stream } from "effect"
import { createHash } from "node:crypto"
import { isTerminal } from "../../domain/runs/view.ts"
import type { HermesEvent, HermesRunStatus } from "./HermesClient.ts"
import type { HermesFailure } from "./failure.ts"
import { HermesTransport } from "./failure.ts"
import { withMetrics } from "../../services/Metrics.ts"

export const TERMINAL_EVENTS: ReadonlySet<string> = new Set(["run.completed", "run.failed", "run.cancelled", "run.interrupted"])

export const GONE_ERROR = "Hermes no longer knows this run (it answered 404): it was restarted or the run expired before the bridge saw it end."

/**
 * The `message.delta` text seen so far, as its length and a running digest: enough to tell whether
 * a final output continues it, without holding a long run's whole text for as long as it is
 * followed. UTF-16 code units are hashed, so a surrogate pair split across two deltas hashes the
 * same as the whole string.
 */
export class StreamedText {
  private readonly hash = createHash("sha256")
  length = 0

  constructor(initial = "") {
    this.append(initial)
  }

  append(piece: string): void {
    this.hash.update(piece, "utf16le")
    this.length += piece.length
  }

  /** True when `text` begins with exactly the streamed text. */
  isPrefixOf(text: string): boolean {
    if (text.length < this.length) return false
    const head = createHash("sha256").update(text.slice(0, this.length), "utf16le").digest()
    return head.equals(this.hash.copy().digest())
  }
}

/** What the follower has seen so far, and the events it synthesises from a status. Pure. */
export class FollowTracker {
  lastId: number | null
  /** The `message.delta` text seen on the stream (and before a re-attach). */
  readonly streamed: StreamedText
  done = false
  private readonly requests = new Set<string>()
  /** Requests announced (streamed or synthesised) and not yet seen resolved: id → kind. */
  private readonly open = new Map<string, "approval" | "clarify">()

  constructor(readonly runId: string, lastId: number | null, private readonly now: () => number = Date.now, receivedText = "") {
    this.lastId = lastId
    this.streamed = new StreamedText(receivedText)
  }

  /** Records a streamed event; false for a replayed frame already seen (it is dropped). */
  accept(e: HermesEvent): boolean {
    if (e.id !== null) {
      if (this.lastId !== null && e.id <= this.lastId) return false
      this.lastId = e.id
    }
    if (e.event === "message.delta" && typeof e.data.delta === "string") this.streamed.append(e.data.delta)
    const request = e.event === "approval.request" ? e.data.request_id : e.event === "clarify.request" ? e.data.clarify_id : undefined
    if (typeof request === "string") {
      this.requests.add(request)
      this.open.set(request, e.event === "approval.request" ? "approval" : "clarify")
    }
    const resolved = e.event === "approval.responded"
      ? e.data.request_id
      : e.event === "clarify.responded" || e.event === "clarify.retired" ? e.data.clarify_id : undefined
    if (typeof resolved === "string") this.open.delete(resolved)
    if (TERMINAL_EVENTS.has(e.event)) this.done = true
    return true
  }

  private synth(event: string, fields: Record<string, unknown>): HermesEvent {
    const e: HermesEvent = {
      id: null,
      event,
      data: { event, run_id: this.runId, timestamp: this.now() / 1000, synthetic: true, ...fields }
    }
    this.accept(e)
    return e
  }

  /**
   * The events a polled status implies, in order; marks the follow done on a terminal status. A
   * request the status no longer shows pending was resolved in Hermes (answered, timed out, denied
   * by a stop): the polled stream never says so, so its `approval.responded` / `clarify.responded`
   * is synthesised, or the run would stay waiting in the ledger while Hermes goes on. A status that
   * is waiting without naming its request resolves nothing; a terminal one is left to its event.
   */
  fromStatus(s: HermesRunStatus): ReadonlyArray<HermesEvent> {
    const out: Array<HermesEvent> = []
    if (!isTerminal(s.status)) {
      for (const [id, kind] of [...this.open]) {
        const stillPending = kind === "approval"
          ? s.status === "waiting_for_approval" && (s.approval === null || s.approval.request_id === id)
          : s.status === "waiting_for_clarification" && (s.clarification === null || s.clarification.clarify_id === id)
        if (stillPending) continue
        out.push(kind === "approval"
          ? this.synth("approval.responded", { request_id: id })
          : this.synth("clarify.responded", { clarify_id: id }))
      }
    }
    if (s.approval !== null && !this.requests.has(s.approval.request_id)) {
      const a = s.approval
      out.push(this.synth("approval.request", { request_id: a.request_id, command: a.command, description: a.description, choices: a.choices }))
    }
    if (s.clarification !== null && !this.requests.has(s.clarification.clarify_id)) {
      const c = s.clarification
      out.push(this.synth("clarify.request", { clarify_id: c.clarify_id, question: c.question, choices: c.choices, multi_select: c.multi_select }))
    }
    switch (s.status) {
      case "completed": {
        // Without an output from Hermes, the streamed text stands as the output (none is sent).
        const output = s.output
        if (output !== null && output.length > this.streamed.length && this.streamed.isPrefixOf(output)) {
          out.push(this.synth("message.delta", { delta: output.slice(this.streamed.length) }))
        }
        out.push(this.synth("run.completed", {
          ...(output === null ? {} : { output }),
          usage: s.usage,
          ...(s.pendingSteer !== undefined && s.pendingSteer !== null ? { pending_steer: s.pendingSteer } : {})
        }))
        break
      }
      case "failed":
        out.push(this.synth("run.failed", { error: s.error ?? "Hermes reported the run failed without an error text." }))
        break
      case "cancelled":
        out.push(this.synth("run.cancelled", {}))
        break
      case "interrupted":
        out.push(this.synth("run.interrupted", { error: s.error ?? "Hermes interrupted the run." }))
        break
      default:
        break
    }
    return out
  }

  /** Hermes answered 404 for the run's status. */
  gone(): HermesEvent {
    return this.synth("run.interrupted", { error: GONE_ERROR })
  }
}

export interface FollowDeps {
  readonly runId: string
  /** One connection to the events route (no reconnect), failures unmapped. */
  readonly openEvents: (lastEventId: number | null) => Stream.Stream<HermesEvent, HermesFailure>
  readonly status: Effect.Effect<HermesRunStatus, HermesFailure>
  readonly schedule: Schedule.Schedule<HermesFailure, HermesFailure>
  /** The profile's name, for the reconnect and polling counters. */
  readonly profile?: string | undefined
}

export interface FollowSettings {
  readonly lastEventId: number | null
  readonly receivedText: string
  readonly pollInterval: Duration.Duration
}

const isNotFound = (f: HermesFailure) => f._tag === "HermesStatus" && f.status === 404

/** Failures no amount of waiting cures: no key, the key refused, a request Hermes calls malformed. */
const isPermanent = (f: HermesFailure) =>
  f._tag === "HermesNoKey" ||
  (f._tag === "HermesStatus" && f.status >= 400 && f.status < 500 && ![404, 408, 409, 425, 429].includes(f.status))

const streamEndedEarly = new HermesTransport({ detail: "the event stream ended before the run did" })

const runFollow = (deps: FollowDeps, settings: FollowSettings, emit: (e: HermesEvent) => Effect.Effect<unknown>) =>
  Effect.gen(function* () {
    const tracker = new FollowTracker(deps.runId, settings.lastEventId, Date.now, settings.receivedText)
    const driver = yield* Schedule.driver(deps.schedule)
    /** Waits as the schedule says; when the schedule gives up, the follow fails with `failure`. */
    const backoff = (failure: HermesFailure) => driver.next(failure).pipe(Effect.mapError(() => failure))
    let polling = false

    while (!tracker.done) {
      if (!polling) {
        const ended = yield* deps.openEvents(tracker.lastId).pipe(
          Stream.runForEachWhile((e) =>
            tracker.accept(e) ? Effect.zipRight(emit(e), driver.reset).pipe(Effect.as(!tracker.done)) : Effect.succeed(true)
          ),
          Effect.either
        )
        if (tracker.done) break
        const failure = Either.isLeft(ended) ? ended.left : streamEndedEarly
        if (isNotFound(failure)) polling = true
        else if (isPermanent(failure)) return yield* Effect.fail(failure)
        else yield* backoff(failure)
        yield* withMetrics((m) => (polling ? m.pollingFallback(deps.profile ?? "default") : m.hermesReconnect(deps.profile ?? "default")))
        continue
      }
      const status = yield* Effect.either(deps.status)
      if (Either.isLeft(status)) {
        if (isNotFound(status.left)) yield* emit(tracker.gone())
        else if (isPermanent(status.left)) return yield* Effect.fail(status.left)
        else yield* backoff(status.left)
        continue
      }
      yield* driver.reset
      for (const e of tracker.fromStatus(status.right)) yield* emit(e)
      if (!tracker.done) yield* Effect.sleep(settings.pollInterval)
    }
  })

/** The follow as a stream with back-pressure: the follower fiber waits while the consumer is busy. */
export const followRun = (deps: FollowDeps, settings: FollowSettings): Stream.Stream<HermesEvent, HermesFailure> =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const mailbox = yield* Mailbox.make<HermesEvent, HermesFailure>({ capacity: 64 })
      yield* runFollow(deps, settings, (e) => mailbox.offer(e)).pipe(Mailbox.into(mailbox), Effect.forkScoped)
      return Mailbox.toStream(mailbox)
    })
  )
