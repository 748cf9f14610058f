/**
 * One run's follower: reads the Hermes event stream (the client reconnects, resumes with
 * Last-Event-ID, or falls back to polling), coalesces deltas, and commits each batch to the ledger
 * in one transaction together with the last Hermes frame id, so a restarted bridge resumes exactly
 * after what it stored. After each commit it wakes the run's waiters and keeps the inbox in step.
 *
 * `followOnce` returns when the run is terminal and fails on anything else; the supervisor restarts it.
 */
import { Data, Duration, Effect, Option, Schedule, Scope } from "effect"
import { fieldsOf, type HermesEvent, makeEvent } from "../../domain/runs/hermesEvents.ts"
import { approvalOf, reduceBatch } from "../../domain/runs/events.ts"
import { isTerminal } from "../../domain/runs/view.ts"
import { FollowTracker } from "../../hermes/client/follow.ts"
import type { HermesClientShape, HermesProfile, HermesRunStatus } from "../../hermes/client/HermesClient.ts"
import { bridgeHermes } from "../hermes-failures/bridgeHermes.ts"
import type { InboxShape } from "../inbox/Inbox.ts"
import type { LedgerShape, RunChange, RunRecord } from "./Ledger.ts"
import { batchesIn } from "./batches.ts"
import { makeFlushTimer } from "./flushTimer.ts"
import { openApprovalId, withoutRecordedRequests } from "./clarifyReplays.ts"
import { withInferredClosings } from "./inferredClosings.ts"
import { logRunEnded, logRunFollowed } from "./runLog.ts"
import { logApprovalResolvedInHermes } from "../inbox/approvalLog.ts"
import type { ApprovalResolved } from "../../domain/runs/events.ts"
import type { RunSignals } from "./RunSignals.ts"
import type { RunLocks } from "./runLocks.ts"
import { type QuietWatch, watchQuiet } from "./quietWatch.ts"
import { isServerOutage, OUTAGE_RETRY } from "./ledgerOutage.ts"

/** The "short timer" of delta coalescing, and the most Hermes events committed in one write. */
export const FLUSH_INTERVAL = Duration.millis(50)
export const BATCH_MAX = 512
/** Streamed text waits for the timer (to be coalesced); every other event is committed at once. */
const STREAMED: ReadonlySet<string> = new Set(["message.delta", "reasoning.delta"])

export const UNKNOWN_PROFILE_ERROR = "the run's Hermes profile is no longer configured; it was interrupted"
export const UNKEYED_PROFILE_ERROR =
  "the bridge no longer holds an API key for the run's Hermes profile, so it can neither follow nor stop it; it was interrupted"

/** The follow ended without the run ending in the ledger: follow again (with a status check). */
export class FollowerStalled extends Data.TaggedError("FollowerStalled")<{ readonly runId: string; readonly status: string }> {}

export interface FollowerDeps {
  readonly ledger: LedgerShape
  readonly hermes: HermesClientShape
  readonly inbox: InboxShape
  readonly signals: RunSignals
  readonly locks: RunLocks
  /** A re-attached stream with no event this long is checked against Hermes's status (`hermes.quiet_check_ms`). */
  readonly quietCheck: Duration.Duration
}

/** Side effects on the inbox are retried briefly; the ledger already holds the truth. */
const inboxRetry = Schedule.exponential("100 millis").pipe(Schedule.intersect(Schedule.recurs(4)))

export const makeFollower = (deps: FollowerDeps) => {
  const { ledger, hermes: client, inbox, signals, locks, quietCheck } = deps
  const hermes = bridgeHermes(client)
  /** One flush timer for the streamed text of every run this follower follows (`flushTimer.ts`). */
  const flushTimer = makeFlushTimer(FLUSH_INTERVAL)
  /** The quiet watch of each run followed now, so a run settled elsewhere (a stop) ends its follow at once. */
  const watching = new Map<string, QuietWatch>()

  const expire = (runId: string, requestId?: string) =>
    inbox.expireRunApprovals(runId, requestId).pipe(
      Effect.retry(inboxRetry),
      Effect.catchAll((e) =>
        Effect.logError("could not expire run approvals", e).pipe(Effect.annotateLogs({ runId, requestId }), Effect.as([]))
      )
    )

  /**
   * Hermes resolved an approval: its row closes as expired. A row still pending here was not the
   * operator's decision (theirs closed it already, and logged it), so the decision is logged as
   * Hermes's.
   */
  const resolved = (runId: string, a: ApprovalResolved) =>
    Effect.flatMap(expire(runId, a.request_id ?? undefined), (rows) =>
      Effect.forEach(rows, (row) => logApprovalResolvedInHermes(row, a.choice, a.inferred), { discard: true })
    )

  /** Opens inbox rows first (idempotent): if that fails, the batch is not committed and is replayed. */
  const openApprovals = (run: RunRecord, batch: ReadonlyArray<HermesEvent>) =>
    Effect.forEach(
      batch.flatMap((e) => {
        const request = fieldsOf(e, "approval.request")
        return request === null ? [] : [approvalOf(request)]
      }),
      (a) =>
        inbox.openRunApproval({ ...a, run_id: run.runId, client: run.client, agent: run.agent, hermes_run_id: run.hermesRunId }).pipe(
          Effect.retry(inboxRetry)
        ),
      { discard: true }
    )

  /** Commits one batch and returns the run as stored afterwards (after a stop of the run in flight). */
  const commit = (run: RunRecord, batch: ReadonlyArray<HermesEvent>) =>
    locks.withRun(run.runId, Effect.gen(function* () {
      if (batch.length === 0) return run
      const fresh = yield* withInferredClosings(ledger, run.runId, yield* withoutRecordedRequests(ledger, run.runId, batch))
      yield* openApprovals(run, fresh)
      const { record, result } = yield* ledger.modify(run.runId, (current) => {
        const r = reduceBatch({ status: current.status, pending: current.pending }, fresh)
        const change: RunChange = {
          events: r.events,
          ...(r.state.status === current.status ? {} : { status: r.state.status }),
          ...(r.state.pending === current.pending ? {} : { pending: r.state.pending }),
          ...(r.error === null ? {} : { error: r.error }),
          ...(r.usage === null ? {} : { usage: r.usage }),
          ...(r.outputAppend.length === 0 ? {} : { outputAppend: r.outputAppend }),
          ...(r.outputReplace === null ? {} : { outputReplace: r.outputReplace }),
          ...(r.hermesEventId === null ? {} : { hermesEventId: r.hermesEventId })
        }
        return { change, result: r }
        // Written against the run as this follower last stored it (its row not read again), unless
        // someone wrote it since (a stop, an answer): then it is read and the batch reduced again.
      }, run)
      if (isTerminal(record.status) && !isTerminal(run.status)) yield* logRunEnded(record)
      yield* Effect.forEach(result.approvalsResolved, (a) => resolved(run.runId, a), { discard: true })
      if (isTerminal(record.status)) {
        yield* expire(run.runId)
        const watch = watching.get(run.runId)
        if (watch !== undefined) yield* watch.halt
      }
      // Waiters wake once the inbox is in step with the commit: a wait that returns a run's end
      // finds its approvals closed (the inbox steps never fail; a retried one delays this ≤ 1.5 s).
      yield* signals.publish(record)
      return record
    }))

  const finish = (run: RunRecord, event: HermesEvent) => commit(run, [event])

  /** Hermes's status of the run; none when Hermes no longer knows it. */
  const statusInHermes = (run: RunRecord, profile: HermesProfile) =>
    hermes.status(profile, run.hermesRunId).pipe(
      Effect.map(Option.some),
      Effect.catchTag("RunNotFound", () => Effect.succeed(Option.none<HermesRunStatus>()))
    )

  /**
   * The follow ended without a terminal event: before the run is closed, its output and status come
   * from Hermes's status, through the same reconciliation (seeded with the text already stored, so
   * a completion adds only what is missing or replaces it whole). A run Hermes still runs is
   * followed again.
   */
  const settle = (stale: RunRecord, profile: HermesProfile) =>
    Effect.gen(function* () {
      // The caller's copy may be older than the ledger (a commit raced an interrupted stream).
      const run = Option.getOrElse(yield* ledger.get(stale.runId), () => stale)
      if (isTerminal(run.status)) return run
      const found = yield* statusInHermes(run, profile)
      const received = run.outputBytes > 0 ? yield* ledger.output(run.runId) : ""
      // Synthesised events are stamped from Effect's Clock, so a TestClock moves them.
      const clock = yield* Effect.clock
      const tracker = new FollowTracker(run.hermesRunId, null, () => clock.unsafeCurrentTimeMillis(), received)
      if (Option.isNone(found)) return yield* finish(run, tracker.gone())
      if (!isTerminal(found.value.status)) return yield* new FollowerStalled({ runId: run.runId, status: found.value.status })
      return yield* commit(run, tracker.fromStatus(found.value))
    })

  /**
   * The quiet watch's question: has the run ended, in the ledger (a stop settled it) or in Hermes
   * (its status is terminal, or Hermes no longer knows it)? A failed status read is no answer: the
   * next quiet interval asks again.
   */
  const endedElsewhere = (runId: string, profile: HermesProfile) =>
    Effect.gen(function* () {
      const stored = yield* ledger.get(runId)
      if (Option.isNone(stored) || isTerminal(stored.value.status)) return true
      const found = yield* statusInHermes(stored.value, profile)
      const ended = Option.isNone(found) || isTerminal(found.value.status)
      if (ended) {
        yield* Effect.logWarning("Hermes ended a run its event stream did not report; settling it from Hermes's status").pipe(
          Effect.annotateLogs({ run_id: runId, hermes_run_id: stored.value.hermesRunId, hermes_status: Option.match(found, { onNone: () => "unknown", onSome: (s) => s.status }) })
        )
      }
      return ended
    }).pipe(
      Effect.catchAll((e) => Effect.logDebug("quiet check: no answer from Hermes or the ledger; asking again later", e).pipe(Effect.as(false)))
    )

  /**
   * A run picked up again (daemon start, follower restart) takes Hermes's word for where it stands,
   * through the follow's own reconciliation (`FollowTracker`), seeded with the requests the ledger
   * holds open: unknown → interrupted (`gone`); a clarification or approval Hermes no longer waits
   * on is resolved (an older build's stream will not say so), one it waits on and the bridge had
   * not seen is announced; then the run takes Hermes's live status. Terminal statuses are left to
   * the stream, which replays or synthesises the terminal event with its data.
   */
  const resync = (run: RunRecord, profile: HermesProfile) =>
    Effect.gen(function* () {
      const found = yield* statusInHermes(run, profile)
      const tracker = new FollowTracker(run.hermesRunId, null)
      if (Option.isNone(found)) return yield* finish(run, tracker.gone())
      const hermesStatus = found.value.status
      if (isTerminal(hermesStatus)) return run
      if (run.pending !== null) tracker.expect(run.pending.request_id, "clarify")
      if (run.status === "waiting_for_approval") tracker.expect(yield* openApprovalId(ledger, run.runId), "approval")
      const reconciled = yield* commit(run, tracker.fromStatus(found.value))
      const { record } = yield* ledger.modify(run.runId, (current) => {
        const status = current.status === "stopping" || isTerminal(current.status) ? current.status : hermesStatus
        return { change: status === current.status ? {} : { status }, result: undefined }
      })
      if (record.status !== reconciled.status) yield* signals.publish(record)
      return record
    })

  /**
   * Follows the run until it is terminal in the ledger. `resume`: the run was followed before (or by
   * an earlier daemon), so its status is checked with Hermes first. The follow's scope (its quiet
   * watch, its batches' producer fiber) is made here and closed when it ends, and given only to the
   * calls that register in it: `Effect.scoped` would keep its resource's frames and the context it
   * provides on the follower's fiber for as long as the run is followed (hours, for a parked run).
   */
  const followOnce = (runId: string, resume: boolean) =>
    Effect.flatMap(Scope.make(), (scope) => followIn(runId, resume, scope).pipe(Effect.onExit((exit) => Scope.close(scope, exit))))

  const followIn = (runId: string, resume: boolean, scope: Scope.CloseableScope) =>
    Effect.gen(function* () {
      const found = yield* ledger.get(runId)
      if (Option.isNone(found) || isTerminal(found.value.status)) return
      // Still queued (or being admitted): nothing in Hermes to follow yet; the queue attaches it once started.
      if (found.value.hermesRunId === "") return yield* new FollowerStalled({ runId, status: found.value.status })
      let run = found.value
      const profile = yield* hermes.profile(run.agent).pipe(Effect.option)
      // A profile removed from the configuration, or left without a key, stays so until the next
      // start: retrying would only hold the run (and a slot of its client's cap) open forever.
      if (Option.isNone(profile) || Option.isNone(profile.value.key)) {
        const error = Option.isNone(profile) ? UNKNOWN_PROFILE_ERROR : UNKEYED_PROFILE_ERROR
        yield* finish(run, makeEvent(null, { event: "run.interrupted", error }))
        return
      }
      yield* logRunFollowed(run, resume)
      if (resume) {
        run = yield* resync(run, profile.value)
        if (isTerminal(run.status)) return
      }
      // What is already stored: a resumed stream replays after it, a completion synthesised from
      // status (older builds) adds only what is missing.
      const lastEventId = run.hermesEventId ?? undefined
      const receivedText = run.outputBytes > 0 ? yield* ledger.output(runId) : undefined
      // A re-attached stream can stay open on keepalives alone after Hermes ended the run
      // (quietWatch.ts): it is cut when Hermes's status says so, and the run is settled from that
      // status below. A run's first stream, or one whose frames are numbered, is never checked.
      const quiet = yield* watchQuiet({
        interval: quietCheck,
        reattach: resume,
        numbered: run.hermesEventId !== null,
        // Built when asked: the question's effect would otherwise stay with the parked run.
        ended: Effect.suspend(() => endedElsewhere(runId, profile.value))
      }).pipe(Scope.extend(scope))
      watching.set(runId, quiet)
      // On the scope itself: `Effect.addFinalizer` would keep the fiber's references of this moment for as long as the run lives.
      yield* Scope.addFinalizer(scope, Effect.sync(() => { if (watching.get(runId) === quiet) watching.delete(runId) }))
      // The follow is the batches' producer fiber: a parked run holds it, and no stream stages.
      const batches = yield* batchesIn(
        scope,
        (offer: (e: HermesEvent) => Effect.Effect<unknown>) =>
          hermes.followInto(profile.value, run.hermesRunId, { lastEventId, receivedText, onReattach: quiet.reattached }, (e) =>
            Effect.zipRight(quiet.saw(e.id !== null), offer(e))),
        { maxItems: BATCH_MAX, interval: FLUSH_INTERVAL, timer: flushTimer, urgent: (e) => !STREAMED.has(e.event) }
      )
      // The run ended elsewhere: what was read is committed, then the follow stops reading.
      yield* quiet.whenEnded(batches.stop)
      yield* batches.consume(
        (batch) =>
          commit(run, batch).pipe(
            // The database server out (a restart): keep the batch and write it when it is back.
            Effect.tapError((e) => (isServerOutage(e) ? Effect.logWarning("the ledger's database does not answer; holding the batch and retrying", e) : Effect.void)),
            Effect.retry({ schedule: OUTAGE_RETRY, while: isServerOutage }),
            Effect.map((next) => {
              run = next
              return isTerminal(next.status)
            })
          )
      )
      if (!isTerminal(run.status)) yield* settle(run, profile.value)
    })

  /**
   * Settles a run from Hermes's status now (a stop Hermes answered "no live task"): terminal or
   * unknown in Hermes ends it in the ledger, through the same reconciliation as `settle`; a run
   * Hermes still runs is returned as stored (its follower goes on). Never holds the run's permit
   * on entry (its commit takes it).
   */
  const reconcile = (runId: string) =>
    Effect.gen(function* () {
      const found = yield* ledger.get(runId)
      if (Option.isNone(found) || isTerminal(found.value.status)) return found
      const profile = yield* hermes.profile(found.value.agent).pipe(Effect.option)
      if (Option.isNone(profile) || Option.isNone(profile.value.key)) return found
      return Option.some(yield* settle(found.value, profile.value).pipe(
        Effect.catchTag("FollowerStalled", () => Effect.succeed(found.value))
      ))
    })

  return { followOnce, commit, reconcile }
}
