/**
 * Admission (issue 38): the one owner of the decision "may this run hold a Hermes slot now". Each
 * profile has a capacity: configured (`hermes.max_concurrent_runs`, or the profile's own) and
 * learned (a start Hermes did not admit, 429 or 503 `gateway_draining`, holds the profile until its
 * `Retry-After` and caps it at the runs live then; a later start above that raises it again).
 *
 * A start that finds a free slot and nobody queued goes to Hermes at once (`startRun.ts`); any
 * other, and one Hermes did not admit, is recorded as `queued` in the ledger. Queued runs are
 * admitted by the pass below: on a slot freed here (a run's terminal write), another process's
 * change of the runs (the change feed: another replica), a queued start, the end of a hold, and (on
 * replicas) a slow safety tick. Each admission is a ledger claim (`Ledger.claimNext`: round-robin by client,
 * in one transaction that holds the profile, so replicas never admit past its capacity), then the
 * Hermes start, then the run's Hermes id and `run.started`, then its follower.
 *
 * A claim whose start never reached the ledger (the daemon died in between) goes back to the
 * queue: at start on a single daemon, after `staleClaimMs` on replicas. A queued run is started
 * with an idempotency key (the client's, else `<client>:<run id>`), so Hermes builds that honour
 * keys replay rather than start twice.
 */
import { Clock, Duration, Effect, Either, Option, Queue, Schedule, Stream } from "effect"
import { isTerminal } from "../../domain/runs/view.ts"
import type { HermesClientShape, ReasoningEffort } from "../../hermes/client/HermesClient.ts"
import type { ChangeFeedShape } from "../../storage/ChangeFeed.ts"
import { Metrics } from "../../common/Metrics.ts"
import type { LedgerShape, RunRecord } from "./Ledger.ts"
import type { RunSignals } from "./RunSignals.ts"
import type { makeHermesStart, NotAdmitted } from "./hermesStart.ts"
import { bridgeHermes } from "../hermes-failures/bridgeHermes.ts"
import { SLOT_FRESH_MS } from "./ledgerQueue.ts"
import { randomBytes } from "node:crypto"

/** The shortest hold after a refusal, whatever `Retry-After` says; the longest. */
const HOLD_MIN_MS = 250
const HOLD_MAX_MS = 30_000
/** A start that failed without an answer from Hermes holds the profile this long. */
const UNAVAILABLE_HOLD_MS = 2_000
/** The replicas' safety tick: a pass even when no signal came (a lost notification), and the stale-claim sweep. */
const TICK = Duration.seconds(5)

export interface AdmissionDeps {
  readonly ledger: LedgerShape
  readonly hermes: HermesClientShape
  readonly signals: RunSignals
  readonly feed: ChangeFeedShape
  readonly startInHermes: ReturnType<typeof makeHermesStart>
  /** The profile's configured capacity. */
  readonly capacityOf: (profile: string) => number
  /** `bridge.max_concurrent_runs_per_client`: a client's live runs, queued runs admitted only below it. */
  readonly clientCap: number
  /** A claim older than this without its Hermes run id is taken as lost (replicas). */
  readonly staleClaimMs: number
  /** Single daemon: every claim found at start is lost (nobody else admits). */
  readonly requeueAllAtStart: boolean
  readonly attach: (runId: string, options: { readonly fresh: boolean }) => Effect.Effect<void>
}

interface ProfileState {
  /** No admission before this (ms): Hermes's `Retry-After`. */
  holdUntil: number
  /** The runs live when Hermes last refused (null: none known below the configured capacity). */
  learned: number | null
}

export interface ProfileCapacity {
  readonly profile: string
  readonly configured: number
  readonly learned: number | null
  readonly heldUntil: number | null
}

export const makeAdmission = (deps: AdmissionDeps) =>
  Effect.gen(function* () {
    const { ledger, signals, feed, startInHermes, capacityOf, clientCap, attach } = deps
    const metrics = yield* Metrics
    const states = new Map<string, ProfileState>()
    const stateOf = (profile: string): ProfileState => {
      let s = states.get(profile)
      if (s === undefined) {
        s = { holdUntil: 0, learned: null }
        states.set(profile, s)
      }
      return s
    }
    const effective = (profile: string) => {
      const s = stateOf(profile)
      return s.learned === null ? capacityOf(profile) : Math.min(capacityOf(profile), s.learned)
    }
    const scope = yield* Effect.scope
    const wake = yield* Queue.sliding<void>(1)
    const kick = Effect.asVoid(Queue.offer(wake, undefined))

    /** Hermes did not admit a start of `profile`: hold it until `Retry-After`, cap it at `live`. */
    const refused = (profile: string, retryAfterMs: number, live: number) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const s = stateOf(profile)
        const hold = Math.min(Math.max(retryAfterMs, HOLD_MIN_MS), HOLD_MAX_MS)
        s.holdUntil = Math.max(s.holdUntil, now + hold)
        s.learned = Math.max(1, Math.min(live, capacityOf(profile)))
        yield* Effect.logInfo("Hermes has no capacity for another run now; queued runs wait").pipe(
          Effect.annotateLogs({ profile, live, retry_after_ms: retryAfterMs })
        )
        yield* Effect.forkIn(Effect.delay(kick, Duration.millis(hold + 5)), scope)
      })

    /**
     * A start of `profile` may go to Hermes now: not held, nobody queued, a slot free (counting this
     * process's starts in flight). `use` runs holding the slot; `queue` otherwise.
     */
    const direct = <A, E, R>(profile: string, use: Effect.Effect<A, E, R>, queue: Effect.Effect<A, E, R>) =>
      Effect.gen(function* () {
        const s = stateOf(profile)
        const now = yield* Clock.currentTimeMillis
        if (now < s.holdUntil) return yield* queue
        const load = yield* ledger.profileLoad(profile).pipe(Effect.orElseSucceed(() => ({ live: 0, queued: 0 })))
        if (load.queued > 0 || load.live >= effective(profile)) return yield* queue
        // The slot is taken in the ledger, under the profile's lock: another replica's start counts it.
        const token = `slot_${randomBytes(12).toString("hex")}`
        // A reservation the store could not make queues the start (the queue's pass admits it once
        // the store answers) rather than failing a start that may well have room.
        const reserved = yield* ledger.reserveSlot(profile, effective(profile), token, now - SLOT_FRESH_MS).pipe(
          Effect.catchAll((e) => Effect.logWarning("could not reserve a slot for a start; it waits in the queue", e).pipe(Effect.as(false)))
        )
        if (!reserved) return yield* queue
        return yield* Effect.ensuring(use, ledger.releaseSlot(token).pipe(Effect.ignoreLogged))
      })

    /** The claimed run failed to start for good: it ends `failed` with Hermes's refusal. */
    const failRun = (run: RunRecord, error: string) =>
      ledger.modify(run.runId, (current) =>
        current.endedAt !== null
          ? { change: {}, result: undefined }
          : { change: { status: "failed", error, events: [{ type: "run.failed", data: { error } }] }, result: undefined }
      ).pipe(Effect.tap((m) => signals.publish(m.record)))

    const backToQueue = (run: RunRecord, e: NotAdmitted | { readonly retryAfterMs: number }) =>
      Effect.gen(function* () {
        yield* ledger.unclaim(run.runId)
        const load = yield* ledger.profileLoad(run.profile).pipe(Effect.orElseSucceed(() => ({ live: 0, queued: 0 })))
        yield* refused(run.profile, e.retryAfterMs, load.live)
        const fresh = yield* ledger.get(run.runId)
        if (Option.isSome(fresh)) yield* signals.publish(fresh.value)
      })

    /** Starts a claimed run in Hermes and records it; never fails (what goes wrong is the run's or the queue's). */
    const startClaimed = (run: RunRecord, live: number) =>
      Effect.gen(function* () {
        const profile = yield* deps.hermes.profile(run.agent).pipe(Effect.option)
        if (Option.isNone(profile) || Option.isNone(profile.value.key)) {
          yield* failRun(run, `the bridge can no longer start runs on ${run.agent} (the profile is gone or has no key)`)
          return
        }
        const started = yield* startInHermes(profile.value, {
          input: run.input,
          instructions: run.instructions ?? undefined,
          sessionKey: run.sessionKey ?? undefined,
          // Always a key: a start the daemon's death cut off is replayed by Hermes, not made twice.
          idempotencyKey: run.idempotencyKey ?? `${run.client}:${run.runId}`,
          reasoningEffort: (run.reasoningEffort ?? undefined) as ReasoningEffort | undefined
        }).pipe(Effect.either)
        if (Either.isLeft(started)) {
          const e = started.left
          if (e._tag === "NotAdmitted") return yield* backToQueue(run, e)
          if (e._tag === "AgentUnavailable") return yield* backToQueue(run, { retryAfterMs: UNAVAILABLE_HOLD_MS })
          yield* failRun(run, e.message)
          yield* kick
          return
        }
        const s = stateOf(run.profile)
        // A start above what was learned: Hermes has more room than it had.
        if (s.learned !== null && live >= s.learned) s.learned = live + 1 >= capacityOf(run.profile) ? null : live + 1
        const now = yield* Clock.currentTimeMillis
        const hermesRunId = started.right.hermesRunId
        const m = yield* ledger.modify(run.runId, (current) =>
          current.endedAt !== null || current.hermesRunId !== ""
            ? { change: {}, result: false }
            : {
                change: {
                  hermesRunId,
                  status: "running",
                  events: [{ type: "run.started", data: { agent: run.agent, replayed: started.right.replayed, queued_ms: now - run.createdAt } }]
                },
                result: true
              }
        ).pipe(Effect.retry(Schedule.exponential("100 millis").pipe(Schedule.intersect(Schedule.recurs(5)))))
        if (!m.result) {
          // Stopped while Hermes started it: it never runs on.
          if (m.record.hermesRunId !== hermesRunId) {
            yield* bridgeHermes(deps.hermes).stop(profile.value, hermesRunId).pipe(Effect.ignoreLogged)
          }
          return
        }
        metrics.runQueuedFor(run.profile, (now - run.createdAt) / 1000)
        yield* signals.publish(m.record)
        yield* attach(run.runId, { fresh: true })
      }).pipe(
        Effect.catchAllCause((cause) => Effect.logError("could not admit a queued run; it waits for the stale-claim sweep", cause)),
        Effect.annotateLogs({ run_id: run.runId, profile: run.profile })
      )

    /** Admits what the profile has room for, each start in its own fiber. */
    const admitFrom = (profile: string) =>
      Effect.gen(function* () {
        const s = stateOf(profile)
        for (;;) {
          const now = yield* Clock.currentTimeMillis
          if (now < s.holdUntil) return
          // Once a hold is over, one run above what was learned probes for more room.
          const room = s.learned === null ? capacityOf(profile) : Math.min(capacityOf(profile), s.learned + 1)
          const claimed = yield* ledger.claimNext(profile, room, clientCap)
          if (Option.isNone(claimed)) return
          yield* signals.publish(claimed.value.record)
          yield* Effect.forkIn(startClaimed(claimed.value.record, claimed.value.live), scope)
        }
      })

    const pass = Effect.gen(function* () {
      const depths = yield* ledger.queueDepths
      yield* Effect.forEach(depths, (d) => admitFrom(d.profile), { discard: true })
    }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("the run queue's pass failed; the next signal tries again", cause)))

    const sweep = (claimedBefore: number) =>
      ledger.requeueStale(claimedBefore).pipe(
        Effect.tap((n) => (n > 0 ? Effect.logWarning(`${n} queued runs whose start was cut off went back to the queue`) : Effect.void)),
        Effect.catchAll((e) => Effect.logWarning("the stale-claim sweep failed", e))
      )

    if (deps.requeueAllAtStart) yield* sweep(Number.MAX_SAFE_INTEGER)
    yield* Effect.forkIn(Stream.fromQueue(wake).pipe(Stream.runForEach(() => pass)), scope)
    // Another process's change of the runs (another replica ended one, the CLI stopped one).
    yield* Effect.forkIn(
      feed.changes("runs").pipe(Stream.filter((c) => c.origin === "other"), Stream.runForEach(() => kick)),
      scope
    )
    // Replicas: the safety tick (a notification lost with a connection) and the stale-claim sweep.
    // A single daemon needs neither: every slot it frees is its own write, its claims were swept at start.
    if (!deps.requeueAllAtStart) {
      yield* Effect.forkIn(
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          yield* sweep(now - deps.staleClaimMs)
          yield* kick
        }).pipe(Effect.repeat(Schedule.spaced(TICK))),
        scope
      )
    }

    return {
      direct,
      refused,
      kick,
      /** A run's terminal write frees its slot: the next queued run may go. */
      ended: (record: RunRecord) => (isTerminal(record.status) ? kick : Effect.void),
      capacities: Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        return [...states.entries()].map(([profile, s]): ProfileCapacity => ({
          profile,
          configured: capacityOf(profile),
          learned: s.learned,
          heldUntil: s.holdUntil > now ? s.holdUntil : null
        }))
      })
    }
  })

export type Admission = Effect.Effect.Success<ReturnType<typeof makeAdmission>>
