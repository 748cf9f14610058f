/**
 * Following one run to its end across dropped connections (HermesClient.follow):
 * - read the event stream; on a drop, reconnect with backoff, sending `Last-Event-ID` once Hermes
 *   has numbered its frames (newer builds replay what was missed; replays already seen are dropped);
 * - on a 404 from the events route (an older build answers 404 to a reconnect once its subscriber
 *   left, and a run whose buffer is gone is 404 too), poll `GET /v1/runs/{id}` instead: pending
 *   approvals and clarifications become `approval.request` / `clarify.request` (once per request
 *   id), one that is no longer pending becomes `approval.responded` / `clarify.responded`, and a
 *   terminal status becomes the terminal event, with the full output (and, when the streamed text
 *   is a prefix of it, a `message.delta` carrying the missed tail first);
 * - a status answer `run_not_found` (Hermes's JSON) means Hermes no longer knows the run: a
 *   synthesised `run.interrupted` says so; a bare 404 there is a build without the route.
 * Synthesised events have `id: null` and `synthetic: true` in their data, and name in `unknown` the
 * fields Hermes would have sent that a status cannot tell (an `approval.responded`'s `choice`). Only one connection to a
 * run's events is ever open here (the next is opened after the last one closed), and only the
 * daemon's follower follows: Hermes 0.20 splits frames between concurrent subscribers.
 */
import { Duration, Effect, Either, Schedule, type Stream } from "effect"
import { createHash, type Hash } from "node:crypto"
import { type HermesEventData, isKnown, isTerminalEvent, makeEvent } from "../../domain/runs/hermesEvents.ts"
import { isTerminal } from "../../domain/runs/view.ts"
import type { HermesEvent, HermesRunStatus } from "./HermesClient.ts"
import type { HermesFailure } from "./failure.ts"
import { failureLog, HermesTransport, saysRunUnknown } from "./failure.ts"
import { withMetrics } from "../../common/Metrics.ts"
import { annotateFiberLogs } from "../../common/fiberLogs.ts"
import { pushedStream } from "./pushedStream.ts"
import { lazyBackoff } from "../../common/lazyBackoff.ts"

/** The one text of a run Hermes no longer knows (its JSON said `run_not_found`). */
export const GONE_ERROR =
  "Hermes no longer knows this run (it answered run_not_found): Hermes or the bridge restarted, or the run expired, before the bridge saw it end; it was interrupted"

/**
 * The `message.delta` text seen so far, as its length and a running digest: enough to tell whether
 * a final output continues it, without holding a long run's whole text for as long as it is
 * followed. UTF-16 code units are hashed, so a surrogate pair split across two deltas hashes the
 * same as the whole string.
 */
export class StreamedText {
  /** Made with the first text: a run parked before it streamed any holds no hash state (OpenSSL's, outside the heap). */
  private hash: Hash | null = null
  length = 0

  constructor(initial = "") {
    this.append(initial)
  }

  append(piece: string): void {
    if (piece.length === 0) return
    this.hash ??= createHash("sha256")
    this.hash.update(piece, "utf16le")
    this.length += piece.length
  }

  /** True when `text` begins with exactly the streamed text. */
  isPrefixOf(text: string): boolean {
    if (text.length < this.length) return false
    if (this.hash === null) return true
    const head = createHash("sha256").update(text.slice(0, this.length), "utf16le").digest()
    return head.equals(this.hash.copy().digest())
  }
}

/** The key of an approval Hermes named no id for (Hermes 0.20: one approval at a time per run). */
const NO_ID = "\u0000no-request-id"

/**
 * What the follower has seen so far, and the events it synthesises from a status. Pure. This is
 * the bridge's one reconciliation of a run with Hermes's status: the follow's polling and the
 * follower's check when it picks a run up again (seeded with what the ledger holds open) both
 * use `fromStatus`, and `gone` is the one ending of a run Hermes no longer knows.
 */
export class FollowTracker {
  lastId: number | null
  /** The `message.delta` text seen on the stream (and before a re-attach). */
  readonly streamed: StreamedText
  done = false
  private readonly requests = new Set<string>()
  /** Requests announced (streamed or synthesised) and not yet seen resolved: id → kind. */
  private readonly open = new Map<string, "approval" | "clarify">()

  /** A request the ledger holds open from an earlier follow (null: an approval without id). */
  expect(id: string | null, kind: "approval" | "clarify"): this {
    const key = id ?? NO_ID
    this.requests.add(key)
    this.open.set(key, kind)
    return this
  }

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
    const d = e.data
    if (isKnown(d)) switch (d.event) {
      case "message.delta":
        this.streamed.append(d.delta)
        break
      case "approval.request":
      case "clarify.request": {
        const request = d.event === "approval.request" ? d.request_id ?? NO_ID : d.clarify_id
        if (request !== undefined) {
          this.requests.add(request)
          this.open.set(request, d.event === "approval.request" ? "approval" : "clarify")
        }
        break
      }
      case "approval.responded":
        // No id: Hermes resolved whatever approval the run had pending.
        if (d.request_id !== undefined) this.open.delete(d.request_id)
        else for (const [id, kind] of [...this.open]) if (kind === "approval") this.open.delete(id)
        break
      case "clarify.responded":
      case "clarify.retired":
        if (d.clarify_id !== undefined) this.open.delete(d.clarify_id)
        break
      default:
        break
    }
    if (isTerminalEvent(e.event)) this.done = true
    return true
  }

  /** An event the status implies, with the envelope Hermes would have sent and `synthetic: true`. */
  private synth(data: HermesEventData): HermesEvent {
    const e = makeEvent(null, { ...data, run_id: this.runId, timestamp: this.now() / 1000, synthetic: true })
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
          ? s.status === "waiting_for_approval" && (s.approval === null || id === NO_ID || s.approval.request_id === id)
          : s.status === "waiting_for_clarification" && (s.clarification === null || s.clarification.clarify_id === id)
        if (stillPending) continue
        out.push(kind === "approval"
          ? this.synth({ event: "approval.responded", ...(id === NO_ID ? {} : { request_id: id }), unknown: ["choice"] })
          : this.synth({ event: "clarify.responded", clarify_id: id }))
      }
    }
    if (s.approval !== null && !this.requests.has(s.approval.request_id)) {
      const a = s.approval
      out.push(this.synth({ event: "approval.request", request_id: a.request_id, command: a.command, description: a.description, choices: a.choices }))
    }
    if (s.clarification !== null && !this.requests.has(s.clarification.clarify_id)) {
      const c = s.clarification
      out.push(this.synth({ event: "clarify.request", clarify_id: c.clarify_id, question: c.question, choices: c.choices, multi_select: c.multi_select }))
    }
    switch (s.status) {
      case "completed": {
        // Without an output from Hermes, the streamed text stands as the output (none is sent).
        const output = s.output
        if (output !== null && output.length > this.streamed.length && this.streamed.isPrefixOf(output)) {
          out.push(this.synth({ event: "message.delta", delta: output.slice(this.streamed.length) }))
        }
        out.push(this.synth({
          event: "run.completed",
          ...(output === null ? {} : { output }),
          usage: s.usage === null ? null : { ...s.usage },
          ...(s.pendingSteer !== undefined && s.pendingSteer !== null ? { pending_steer: s.pendingSteer } : {})
        }))
        break
      }
      case "failed":
        out.push(this.synth({ event: "run.failed", error: s.error ?? "Hermes reported the run failed without an error text." }))
        break
      case "cancelled":
        out.push(this.synth({ event: "run.cancelled" }))
        break
      case "interrupted":
        out.push(this.synth({ event: "run.interrupted", error: s.error ?? "Hermes interrupted the run." }))
        break
      default:
        break
    }
    return out
  }

  /** Hermes answered 404 for the run's status. */
  gone(): HermesEvent {
    return this.synth({ event: "run.interrupted", error: GONE_ERROR })
  }
}

export interface FollowDeps {
  readonly runId: string
  /**
   * One connection to the events route (no reconnect), each event handed to `onEvent` until it
   * answers false; succeeds when the stream ended. Failures unmapped.
   */
  readonly readEvents: (lastEventId: number | null, onEvent: (e: HermesEvent) => Effect.Effect<boolean>) => Effect.Effect<void, HermesFailure>
  readonly status: Effect.Effect<HermesRunStatus, HermesFailure>
  readonly schedule: Schedule.Schedule<HermesFailure, HermesFailure>
  /** The profile's name, for the reconnect and polling counters. */
  readonly profile?: string | undefined
  /** The profile's agent id (`hermes`, `hermes/<profile>`), for the follow's own failures. */
  readonly agent: string
}

export interface FollowSettings {
  readonly lastEventId: number | null
  readonly receivedText: string
  readonly pollInterval: Duration.Duration
  /** Runs each time the events route is opened again after a drop (not on the first open). */
  readonly onReattach?: Effect.Effect<void> | undefined
}

const isNotFound = (f: HermesFailure) => f._tag === "HermesStatus" && f.status === 404

/** Failures no amount of waiting cures: no key, the key refused, a request Hermes calls malformed. */
const isPermanent = (f: HermesFailure) =>
  f._tag === "HermesNoKey" || f._tag === "HermesLacks" ||
  (f._tag === "HermesStatus" && f.status >= 400 && f.status < 500 && ![404, 408, 409, 425, 429].includes(f.status))

const EVENTS_ROUTE = "GET /v1/runs/{id}/events"
const STATUS_ROUTE = "GET /v1/runs/{id}"

const streamEndedEarly = (agent: string) =>
  new HermesTransport({ agent, route: EVENTS_ROUTE, detail: "the event stream ended before the run did" })

/** One warn line per Hermes trouble: what failed, on which route, and what the follow does next. */
const trouble = (route: string, failure: HermesFailure, next: string) =>
  Effect.logWarning(`Hermes trouble while following a run: ${next}`).pipe(
    Effect.annotateLogs({ route, ...failureLog(failure), next })
  )

const runFollow = (deps: FollowDeps, settings: FollowSettings, emit: (e: HermesEvent) => Effect.Effect<unknown>) =>
  Effect.gen(function* () {
    const tracker = new FollowTracker(deps.runId, settings.lastEventId, Date.now, settings.receivedText)
    // Reset by every event: a stream that drops after hours of health reconnects at the first delay.
    const backoffs = lazyBackoff(deps.schedule)
    /** Waits as the schedule says; when the schedule gives up, the follow fails with `failure`. */
    const backoff = (failure: HermesFailure) => backoffs.next(failure).pipe(Effect.mapError(() => failure))
    let polling = false
    let opened = false

    while (!tracker.done) {
      if (!polling) {
        if (opened && settings.onReattach !== undefined) yield* settings.onReattach
        opened = true
        const ended = yield* deps.readEvents(tracker.lastId, (e) =>
          tracker.accept(e) ? Effect.zipRight(emit(e), backoffs.reset).pipe(Effect.as(!tracker.done)) : Effect.succeed(true)
        ).pipe(Effect.either)
        if (tracker.done) break
        const failure = Either.isLeft(ended) ? ended.left : streamEndedEarly(deps.agent)
        if (isNotFound(failure)) {
          polling = true
          yield* trouble(EVENTS_ROUTE, failure, "polling the run's status instead of its event stream")
        } else if (isPermanent(failure)) {
          yield* trouble(EVENTS_ROUTE, failure, "giving up on this follow (the follower restarts it)")
          return yield* Effect.fail(failure)
        } else {
          yield* trouble(EVENTS_ROUTE, failure, "reconnecting the event stream after a backoff")
          yield* backoff(failure)
        }
        yield* withMetrics((m) => (polling ? m.pollingFallback(deps.profile ?? "default") : m.hermesReconnect(deps.profile ?? "default")))
        continue
      }
      const status = yield* Effect.either(deps.status)
      if (Either.isLeft(status)) {
        if (saysRunUnknown(status.left)) {
          yield* trouble(STATUS_ROUTE, status.left, "ending the run as interrupted")
          yield* emit(tracker.gone())
        } else if (isPermanent(status.left) || isNotFound(status.left)) {
          // A bare 404 here is a build without the status route: nothing to wait for.
          yield* trouble(STATUS_ROUTE, status.left, "giving up on this follow (the follower restarts it)")
          return yield* Effect.fail(status.left)
        } else {
          yield* trouble(STATUS_ROUTE, status.left, "polling the run's status again after a backoff")
          yield* backoff(status.left)
        }
        continue
      }
      yield* backoffs.reset
      for (const e of tracker.fromStatus(status.right)) yield* emit(e)
      if (!tracker.done) yield* Effect.sleep(settings.pollInterval)
    }
  })

/**
 * The follow handing each event to `emit`, in the caller's fiber: it waits while `emit` does. Its
 * log lines carry Hermes's run id from that fiber: the follow is meant to be the fiber's one job
 * (a run's follower forks it so), and the annotation stays the fiber's (`annotateFiberLogs`: a
 * scoped one would hold frames for as long as a parked run's follow waits).
 */
export const followRunInto = (deps: FollowDeps, settings: FollowSettings, emit: (e: HermesEvent) => Effect.Effect<unknown>): Effect.Effect<void, HermesFailure> =>
  Effect.zipRight(annotateFiberLogs({ hermes_run_id: deps.runId }), runFollow(deps, settings, emit))

/** The follow as a stream with back-pressure: the follower fiber (the stream's own) waits while the consumer is busy. */
export const followRun = (deps: FollowDeps, settings: FollowSettings): Stream.Stream<HermesEvent, HermesFailure> =>
  pushedStream((offer) => followRunInto(deps, settings, offer))
