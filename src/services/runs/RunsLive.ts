/**
 * `RunsLive`: the run service (delegation). Owns the followers (one per live run, supervised, in
 * this layer's scope), the waiters' signals and the retention sweeper; answers the nine run tools.
 *
 * Requires: Ledger (or SqlClient via `RunsLive`), HermesClient, Inbox, Redactor, AppConfig, Lifecycle,
 * ChangeFeed (waits notice another process's writes of a run).
 * Every call answers `bridge.unavailable` unless the daemon's Lifecycle is `ready`. Building the layer
 * re-attaches every run the ledger holds as unfinished.
 */
import { refuseNul } from "../../domain/text.ts"
import { Duration, Effect, Layer, Option, Stream } from "effect"
import { AppConfig } from "../../config/AppConfig.ts"
import { InvalidOffset, RunNotFound, type StoreUnavailable } from "../../domain/errors.ts"
import { HermesClient } from "../../hermes/client/HermesClient.ts"
import { Caller } from "../../request/Caller.ts"
import { Inbox } from "../inbox/Inbox.ts"
import { Lifecycle } from "../../common/Lifecycle.ts"
import { Redactor } from "../../common/Redactor.ts"
import { Runs, type RunsShape } from "./Runs.ts"
import { makeControl } from "./control.ts"
import { makeFollower } from "./follower.ts"
import { isLedgerFailure, Ledger, ledgerFailureText, type LedgerError, type LedgerRunMissing, type RunRecord } from "./Ledger.ts"
import { LedgerLive } from "./LedgerSql.ts"
import { startRetention } from "./retention.ts"
import { makeRunSignals, type RunSignals } from "./RunSignals.ts"
import { localFollowers, RunFollowers } from "./RunFollowers.ts"
import { makeStart } from "./startRun.ts"
import { makeAdmission } from "./admission.ts"
import { makeHermesStart } from "./hermesStart.ts"
import { makeViews } from "./views.ts"
import { makeWaits } from "./waits.ts"
import { EVENTS_PAGE_MAX } from "../../domain/limits.ts"
import { makeRunLocks } from "./runLocks.ts"
import { failOnOutage } from "./ledgerOutage.ts"
import { databasePlace } from "../../storage/Db.ts"
import { ChangeFeed } from "../../storage/ChangeFeed.ts"
import { prefixKey } from "../../domain/runs/keys.ts"

export const MAX_LIST = 200

const clamp = (n: number, lo: number, hi: number) => Math.min(Math.max(Math.trunc(n), lo), hi)

export const makeRuns = Effect.gen(function* () {
  const ledger = yield* Ledger
  const hermes = yield* HermesClient
  const inbox = yield* Inbox
  const redactor = yield* Redactor
  const config = yield* AppConfig
  const lifecycle = yield* Lifecycle
  const feed = yield* ChangeFeed
  const place = databasePlace(config)

  // Every committed write is published here: a terminal one frees a Hermes slot for the queue.
  const published = yield* makeRunSignals
  let slotFreed: (record: RunRecord) => Effect.Effect<void> = () => Effect.void
  const signals: RunSignals = { ...published, publish: (record) => Effect.zipRight(published.publish(record), Effect.suspend(() => slotFreed(record))) }
  const locks = makeRunLocks()
  const follower = makeFollower({ ledger, hermes, inbox, signals, locks, quietCheck: Duration.millis(config.hermes.quiet_check_ms) })
  // One daemon's FiberMap, or the replicas' cluster on PostgreSQL (RunFollowers.ts).
  const followers = Option.getOrElse(yield* Effect.serviceOption(RunFollowers), () => localFollowers)
  const supervisor = yield* followers.make(follower.followOnce)
  const views = makeViews({ ledger, redactor, inbox })
  const waits = makeWaits({ ledger, signals, views, feed })
  const control = makeControl({ ledger, hermes, signals, locks, reconcile: follower.reconcile })
  const admission = yield* makeAdmission({
    ledger,
    hermes,
    signals,
    feed,
    startInHermes: makeHermesStart(hermes),
    capacityOf: (profile) => config.hermes.profiles[profile]?.max_concurrent_runs ?? config.hermes.max_concurrent_runs,
    clientCap: config.bridge.max_concurrent_runs_per_client,
    // A claim's start may take every retry of a start at the profile's timeout: past that, it was lost.
    staleClaimMs: config.hermes.timeout_ms * 5 + 30_000,
    requeueAllAtStart: followers === localFollowers,
    attach: supervisor.attach
  })
  slotFreed = admission.ended
  const start = makeStart({
    ledger,
    hermes,
    maxRunsPerClient: config.bridge.max_concurrent_runs_per_client,
    maxQueuedPerClient: config.bridge.max_queued_runs_per_client,
    admission,
    attach: supervisor.attach,
    scope: yield* Effect.scope,
    internal: (operation, cause) => {
      const die = Effect.dieMessage(`${operation}: ${isLedgerFailure(cause) ? ledgerFailureText(cause) : String(cause)}`)
      return isLedgerFailure(cause) ? failOnOutage(cause, place, die) : die
    }
  })

  // Re-attach: every run the ledger holds as unfinished gets its follower back.
  // Queued runs (no Hermes run id yet) are the queue's: followed once admitted.
  const unfinished = (yield* ledger.active.pipe(Effect.orDie)).filter((r) => r.hermesRunId !== "")
  // With a cluster each attach stores a Follow message (a duplicate of a live one is dropped).
  yield* Effect.forEach(unfinished, (r) => supervisor.attach(r.runId), { discard: true, concurrency: 8 })
  if (unfinished.length > 0) yield* Effect.logInfo(`re-attached ${unfinished.length} unfinished runs`)
  yield* startRetention(ledger, config.bridge.run_retention_days)

  /**
   * Unexpected ledger failures are defects: the edge logs them under an incident (`bridge.internal`).
   * The database server's outage is not (`ledgerOutage.ts`): `bridge.store_unavailable`.
   */
  const orDie = <A, E, R>(e: Effect.Effect<A, E, R>) =>
    Effect.catchIf(e, isLedgerFailure, (x) => failOnOutage(x, place, Effect.dieMessage(ledgerFailureText(x)))) as Effect.Effect<A, Exclude<E, LedgerError | LedgerRunMissing> | StoreUnavailable, R>

  /** Another client's run is reported exactly like an unknown id (same message). */
  const notFound = (runId: string) => new RunNotFound({ message: `no run ${JSON.stringify(runId.slice(0, 80))}` })

  /**
   * The caller's run, after the readiness check. Read by id and owner in one statement: another
   * client's run id takes the same path as an unknown one (the row is never read to be checked
   * afterwards, which made a foreign id measurably slower to refuse).
   */
  const own = (runId: string) =>
    Effect.gen(function* () {
      yield* lifecycle.requireReady
      const caller = yield* Caller
      const found = yield* orDie(ledger.getOwned(runId, caller.isAdmin ? null : caller.client))
      if (Option.isNone(found)) return yield* notFound(runId)
      return found.value
    })

  const runs: RunsShape = {
    start: (input) =>
      Effect.gen(function* () {
        // Before anything is recorded or sent to Hermes: PostgreSQL cannot store a NUL.
        yield* refuseNul({ input: input.input, instructions: input.instructions })
        yield* lifecycle.requireReady
        const caller = yield* Caller
        const run = yield* start(caller, input)
        return yield* orDie(views.runView(run, 0))
      }),

    wait: (runId, timeoutSeconds) =>
      Effect.flatMap(own(runId), (run) => orDie(waits.wait(run, timeoutSeconds))),

    status: (runId, offset) =>
      offset < 0 || !Number.isInteger(offset)
        ? Effect.fail(new InvalidOffset({ message: `offset must be a whole number of bytes ≥ 0, not ${offset}` }))
        : Effect.flatMap(own(runId), (run) => orDie(views.runView(run, offset))),

    watch: (runId) =>
      Stream.unwrap(Effect.map(own(runId), (run) =>
        waits.watch(run).pipe(
          // A shutdown ends a follow with bridge.unavailable, as it ends the run tools' waits.
          Stream.interruptWhen(lifecycle.untilNotReady),
          Stream.mapEffect((r) => orDie(views.runView(r, 0))),
          Stream.catchAll((e) => Stream.fromEffect(orDie(Effect.fail(e)))),
          // A re-read that found nothing new (a burst read late) is not sent twice.
          Stream.changesWith((a, b) => a.status === b.status && a.last_seq === b.last_seq && a.updated_at === b.updated_at && a.pending?.request_id === b.pending?.request_id)
        ))),

    events: (runId, sinceSeq, limit) =>
      Effect.flatMap(own(runId), (run) => orDie(views.eventsPage(run, Math.max(0, Math.trunc(sinceSeq)), clamp(limit, 1, EVENTS_PAGE_MAX)))),

    answer: (runId, requestId, answer) =>
      Effect.flatMap(Effect.zipRight(refuseNul({ request_id: requestId, answer }), own(runId)), (run) => orDie(Effect.flatMap(control.answer(run, requestId, answer), (r) => views.runView(r, 0)))),

    steer: (runId, input) =>
      Effect.flatMap(Effect.zipRight(refuseNul({ input }), own(runId)), (run) =>
        orDie(
          control.steer(run, input).pipe(
            Effect.flatMap((r) => ledger.get(r.runId).pipe(Effect.map(Option.getOrElse(() => r)))),
            Effect.flatMap((r) => views.runView(r, 0))
          )
        )),

    stop: (runId, actor) =>
      Effect.flatMap(own(runId), (run) => orDie(Effect.flatMap(control.stop(run, actor), (r) => views.runView(r, 0)))),

    list: ({ status, limit }) =>
      Effect.gen(function* () {
        yield* lifecycle.requireReady
        const caller = yield* Caller
        const rows = yield* orDie(ledger.list({ client: caller.isAdmin ? null : caller.client, status, limit: clamp(limit, 1, MAX_LIST) }))
        const items = yield* orDie(Effect.forEach(rows, views.listItem))
        return { runs: items }
      }),

    page: ({ statuses, session_key, updated_since, after, limit }) =>
      Effect.gen(function* () {
        yield* lifecycle.requireReady
        const caller = yield* Caller
        // The cursor must be one of the caller's runs: another client's id pages nothing of it.
        if (after !== undefined) yield* own(after)
        const filter = {
          client: caller.isAdmin ? null : caller.client,
          statuses,
          sessionKey: session_key === undefined ? undefined : prefixKey(caller.client, session_key),
          updatedSince: updated_since
        }
        const n = clamp(limit, 1, MAX_LIST)
        const rows = yield* orDie(ledger.list({ ...filter, after, limit: n + 1 }))
        const items = yield* orDie(Effect.forEach(rows.slice(0, n), views.listItem))
        const total = yield* orDie(ledger.count(filter))
        return { runs: items, more: rows.length > n, total }
      })
  }
  return { runs, supervisor, signals }
})

/** The run service over a Ledger already in context (tests give it doubles). */
export const RunsWithLedger = Layer.scoped(Runs, Effect.map(makeRuns, (m) => m.runs))

/** The run service over the bridge's SQLite database. */
export const RunsLive = RunsWithLedger.pipe(Layer.provide(LedgerLive))
