/**
 * `agent_run_wait` and `agent_run`'s `wait_s`: block until the run is terminal, a clarification is
 * pending, or the timeout passes (an approval does not end a wait). The wait only subscribes to the
 * run's signal; interrupting it (a cancelled MCP request) stops the wait and nothing else.
 *
 * The signal is published by this process's writers. A run another process writes (a second daemon
 * on the same database follows it) reaches the wait through the `ChangeFeed`: on each other
 * process's change of topic `runs` the wait reads the run again and publishes what is stored.
 *
 * With progress enabled, a notification goes out on each new event and at least every 10 seconds.
 *
 * `watch` is the same subscription as a stream of the run's records (`Runs.watch`): every face that
 * follows a run (the A2A streams, the MCP Tasks listen) follows it through this, never on a timer.
 */
import { Duration, Effect, Option, Schedule, Stream } from "effect"
import { isTerminal } from "../../domain/runs/view.ts"
import type { RunWaitView } from "../../domain/runs/view.ts"
import { Progress } from "../../request/Progress.ts"
import type { LedgerError, LedgerShape, RunRecord } from "./Ledger.ts"
import type { ChangeFeedShape } from "../../storage/ChangeFeed.ts"
import { endsWait, type RunSignal, type RunSignals, signalOf } from "./RunSignals.ts"
import type { Views } from "./views.ts"
import { countWait, countWatch } from "../../common/Metrics.ts"
import { WAIT_MAX_SECONDS } from "../../domain/limits.ts"

export const HEARTBEAT = Duration.seconds(10)

export interface WaitDeps {
  readonly ledger: LedgerShape
  readonly signals: RunSignals
  readonly views: Views
  readonly feed: ChangeFeedShape
}

const describe = (s: RunSignal) => `${s.status}; ${s.lastSeq} events`

export const makeWaits = ({ ledger, signals, views, feed }: WaitDeps) => {
  /**
   * The run's signal as it changes, in the caller's scope: the current one first, then each newer
   * one, until the run ends (the terminal signal is the last). This process's writers publish to
   * it; another process's commits reach it through the feed, as a fresh read published.
   */
  const signalChanges = (run: RunRecord) =>
    Effect.gen(function* () {
      const ref = yield* signals.ref(run)
      // Subscribed before the read below, so another process's write after it is not missed.
      const others = (yield* feed.subscribe("runs")).pipe(Stream.filter((c) => c.origin === "other" && (c.key === undefined || c.key === run.runId)))
      const publishStored = Effect.flatMap(ledger.get(run.runId), (fresh) => (Option.isSome(fresh) ? signals.publish(fresh.value) : Effect.void))
      // Close the gap between our read and the ref's creation: publish what is stored now.
      yield* publishStored
      yield* others.pipe(
        Stream.buffer({ capacity: 1, strategy: "sliding" }),
        Stream.runForEach(() => Effect.ignore(publishStored)),
        Effect.forkScoped
      )
      // A failed re-read is left to the next change (or a wait's final read).
      return { ref, changes: ref.changes.pipe(Stream.takeUntil((s) => isTerminal(s.status))) }
    })

  /** Waits on the run's signal; returns whether the wait ended before the timeout. */
  const awaitEnd = (run: RunRecord, timeout: Duration.Duration) =>
    Effect.gen(function* () {
      const progress = yield* Progress
      const { ref, changes } = yield* signalChanges(run)
      let reported = -1
      const report = (s: RunSignal) => (progress.enabled ? progress.report(s.lastSeq, describe(s)) : Effect.void)
      const onSignal = (s: RunSignal) =>
        s.lastSeq > reported ? Effect.zipRight(Effect.sync(() => { reported = s.lastSeq }), report(s)) : Effect.void

      if (progress.enabled) {
        yield* ref.get.pipe(
          Effect.flatMap(report),
          Effect.repeat(Schedule.spaced(HEARTBEAT)),
          Effect.delay(HEARTBEAT),
          Effect.forkScoped
        )
      }
      const ended = yield* changes.pipe(
        Stream.tap(onSignal),
        Stream.filter(endsWait),
        Stream.runHead,
        Effect.timeoutOption(timeout)
      )
      return Option.isSome(ended) && Option.isSome(ended.value)
    }).pipe(Effect.scoped)

  /**
   * The run's stored record after each change of its signal (the record now first), until it ends.
   * A burst of changes read late is read once (the newest), so a slow reader never falls behind.
   */
  const watch = (run: RunRecord): Stream.Stream<RunRecord, LedgerError> =>
    countWatch(Stream.unwrapScoped(Effect.map(signalChanges(run), ({ changes }) =>
      changes.pipe(
        Stream.buffer({ capacity: 1, strategy: "sliding" }),
        Stream.mapEffect(() => Effect.map(ledger.get(run.runId), Option.getOrElse(() => run))),
        Stream.takeUntil((r) => isTerminal(r.status))
      ))))

  /** The wait view once the run ends, asks, or `timeoutSeconds` pass. */
  const wait = (run: RunRecord, timeoutSeconds: number) =>
    Effect.gen(function* () {
      const seconds = Math.min(Math.max(timeoutSeconds, 0), WAIT_MAX_SECONDS)
      const endedEarly = endsWait(signalOf(run)) || (seconds > 0 && (yield* countWait(awaitEnd(run, Duration.seconds(seconds)))))
      const latest = Option.getOrElse(yield* ledger.get(run.runId), () => run)
      const view = yield* views.runView(latest, 0)
      const tail = yield* views.tail(latest)
      const waitView: RunWaitView = { ...view, events_tail: tail, timed_out: !endedEarly && !endsWait(signalOf(latest)) }
      return waitView
    })

  return { wait, watch }
}
