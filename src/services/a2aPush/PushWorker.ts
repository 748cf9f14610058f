/**
 * The push worker: one fiber in the daemon's scope that, at each wake-up (below),
 *
 * 1. dispatches: for every config whose task has not ended, reads its run's current state (through
 *    `render`, which the daemon wires to the A2A face's task view, redacted as every read is) and,
 *    when the task state differs from the one last enqueued, enqueues the task as a notification
 *    (`PushConfigs.advance`: one transaction, once per state). At start this catches up every state
 *    a run reached while the daemon was down;
 * 2. starts the due notifications' attempts (`makeDeliverer`), each a fiber of its own, within the
 *    bounds of `a2a.push_*` (in all, per receiving host, per client; clients take turns), without
 *    waiting for them: the webhook URL is checked again (allow list, DNS now, every address
 *    public), the POST goes to the checked address within the attempt's deadline, a 2xx marks it
 *    delivered; anything else, whatever failed, is retried later with exponential backoff
 *    (`backoffMs`) until A2A_PUSH_ATTEMPTS_MAX attempts or A2A_PUSH_DELIVERY_MAX_MS after it was
 *    enqueued, then given up (the outcome says why). One row's failure is that row's attempt only.
 *
 * It never polls (issues 41 and 39): it wakes on a config put here, an attempt's end, a change to a
 * run it pushes (written here, or another process's commit), and at the earliest end of a backoff,
 * the one wake-up the clock brings (`PushWorkerLive`). With nothing to do it sleeps until a put.
 *
 * The backoff lives in the row (`next_at`), not in a fiber's Schedule, so a restart resumes it.
 * Delivery is at-least-once: a POST that reached the receiver but whose answer was lost is sent
 * again, with the same delivery id.
 */
import { randomUUID } from "node:crypto"
import { Cause, Clock, Duration, Effect, FiberSet, Layer, Option, Queue, Schema, Stream, SubscriptionRef } from "effect"
import { ChangeFeed } from "../../storage/ChangeFeed.ts"
import { Ledger } from "../runs/Ledger.ts"
import { AppConfig } from "../../config/AppConfig.ts"
import type { ResolvedConfig } from "../../config/load.ts"
import { A2aSection } from "../../config/schema.ts"
import { Lifecycle } from "../../common/Lifecycle.ts"
import { parseAllowRule, type AllowRule } from "../../domain/a2a/webhookAllow.ts"
import {
  A2A_PUSH_ATTEMPTS_MAX,
  A2A_PUSH_BACKOFF_FIRST_MS,
  A2A_PUSH_BACKOFF_MAX_MS,
  A2A_PUSH_DELIVERY_MAX_MS,
  A2A_PUSH_PER_PASS,
  A2A_PUSH_POLL_MS
} from "../../domain/limits.ts"
import { postNotification } from "./deliver.ts"
import { type Delivery, PushConfigs, type PushConfig } from "./PushConfigs.ts"
import { checkWebhook } from "./webhookCheck.ts"
import { WebhookResolver } from "./WebhookResolver.ts"

/** A task as the worker sees it: its state, a version that moves with it, and the body to send. */
export interface TaskSnapshot {
  readonly state: string
  /** The run's event seq: two visits of one state (WORKING, INPUT_REQUIRED, WORKING) are two notifications. */
  readonly seq: number
  readonly terminal: boolean
  /** The notification's body (a StreamResponse as JSON) carrying this delivery id. */
  readonly body: (deliveryId: string) => string
}

/** Reads a run's task; `None` when the run is gone. */
export type PushRender<R> = (runId: string) => Effect.Effect<Option.Option<TaskSnapshot>, unknown, R>

/** The delay before attempt `attempts + 1`: 1 s, 2 s, 4 s, … at most 10 minutes. */
export const backoffMs = (attempts: number): number =>
  Math.min(A2A_PUSH_BACKOFF_MAX_MS, A2A_PUSH_BACKOFF_FIRST_MS * 2 ** Math.min(Math.max(attempts - 1, 0), 30))

const stateOfKey = (key: string) => key.split("@")[0] ?? ""

/** Configs looked at per pass (the active ones: tasks that have not ended). */
const CONFIGS_PER_PASS = 500

export const allowRulesOf = (entries: ReadonlyArray<string>): ReadonlyArray<AllowRule> =>
  entries.flatMap((e) => {
    const rule = parseAllowRule(e)
    return typeof rule === "string" ? [] : [rule]
  })

/** One dispatch: how many notifications it enqueued, and the runs whose configs are active (the worker's wake-ups). */
const dispatch = <R>(render: PushRender<R>) =>
  Effect.gen(function* () {
    const store = yield* PushConfigs
    const configs = yield* store.active(CONFIGS_PER_PASS)
    const byRun = new Map<string, Array<PushConfig>>()
    for (const c of configs) byRun.set(c.runId, [...(byRun.get(c.runId) ?? []), c])
    let enqueued = 0
    for (const [runId, list] of byRun) {
      const snapshot = yield* render(runId).pipe(
        Effect.catchAllCause((cause) => Effect.as(Effect.logWarning(`push: reading task ${runId} failed`, cause), Option.none<TaskSnapshot>()))
      )
      if (Option.isNone(snapshot)) continue
      const s = snapshot.value
      for (const config of list) {
        if (config.lastState !== "" && stateOfKey(config.lastState) === s.state) continue
        const deliveryId = `pn_${randomUUID().replaceAll("-", "")}`
        // One config's failure (its body, its row) is logged and leaves the others to go on.
        const advanced = yield* Effect.suspend(() => store.advance(config, config.lastState, `${s.state}@${s.seq}`, s.terminal, { deliveryId, runSeq: s.seq, body: s.body(deliveryId) })).pipe(
          Effect.catchAllCause((cause) => Effect.as(Effect.logWarning(`push: enqueueing a notification of task ${runId} failed`, cause), false))
        )
        if (advanced) enqueued++
      }
    }
    return { enqueued, runs: new Set(byRun.keys()) }
  })

/** One dispatch pass (the tests'): answers how many notifications it enqueued. */
export const dispatchPass = <R>(render: PushRender<R>) => Effect.map(dispatch(render), (d) => d.enqueued)

/** What one attempt came to: an answer that delivers it, a failure (why), or its config is gone. */
type Attempt =
  | { readonly _tag: "Sent"; readonly outcome: string }
  | { readonly _tag: "Failed"; readonly reason: string }
  | { readonly _tag: "NoConfig" }

/** The text of a failure no code path expected (a defect), for the row's outcome. */
const defectText = (cause: Cause.Cause<unknown>): string => {
  const e = Cause.squash(cause)
  return `the attempt failed: ${e instanceof Error ? e.message : String(e)}`
}

/** Checks the URL and POSTs; every failure, expected or not, is this row's `Failed`. */
const send = (d: Delivery, rules: ReadonlyArray<AllowRule>, timestamp: number, deadlineMs: number): Effect.Effect<Attempt, never, PushConfigs | WebhookResolver> =>
  Effect.gen(function* () {
    const store = yield* PushConfigs
    const config = yield* store.get(d.runId, d.configId)
    if (Option.isNone(config)) return { _tag: "NoConfig" } as const
    const target = yield* checkWebhook(config.value.url, rules)
    const status = yield* postNotification(target, { deliveryId: d.deliveryId, body: d.body, ...config.value }, timestamp, deadlineMs)
    return { _tag: "Sent", outcome: `HTTP ${status}` } as const
  }).pipe(
    Effect.catchTags({
      WebhookRefused: (e) => Effect.succeed<Attempt>({ _tag: "Failed", reason: e.reason }),
      PostFailed: (e) => Effect.succeed<Attempt>({ _tag: "Failed", reason: e.reason })
    }),
    Effect.catchAllCause((cause) =>
      Effect.as(
        Effect.logWarning(`push: an attempt of notification ${d.deliveryId} failed unexpectedly`, cause),
        { _tag: "Failed", reason: defectText(cause) } as const
      )
    )
  )

/**
 * One attempt of one row, recorded on the row: delivered, retried after the backoff, or given up
 * at the limit. Nothing it meets stops another row: a failure of any kind is this row's attempt,
 * and a failure to record it is logged (the row is due again at the next pass).
 */
const attemptOne = (deliveryId: string, rules: ReadonlyArray<AllowRule>, deadlineMs: number) =>
  Effect.gen(function* () {
    const store = yield* PushConfigs
    const pending = yield* store.delivery(deliveryId)
    if (Option.isNone(pending)) return
    const d = pending.value
    const result = yield* send(d, rules, yield* Clock.currentTimeMillis, deadlineMs)
    const now = yield* Clock.currentTimeMillis
    const attempts = d.attempts + 1
    if (result._tag === "NoConfig") return yield* store.giveUp(d.deliveryId, d.attempts, "the config was deleted")
    if (result._tag === "Sent") return yield* store.delivered(d.deliveryId, result.outcome)
    if (attempts >= A2A_PUSH_ATTEMPTS_MAX || now - d.createdAt >= A2A_PUSH_DELIVERY_MAX_MS) {
      yield* Effect.logWarning(`push: notification ${d.deliveryId} of task ${d.runId} given up after ${attempts} attempts (${result.reason})`)
      return yield* store.giveUp(d.deliveryId, attempts, result.reason)
    }
    yield* store.retryAt(d.deliveryId, attempts, now + backoffMs(attempts), result.reason)
  }).pipe(Effect.catchAllCause((cause) => Effect.logWarning(`push: the attempt of notification ${deliveryId} could not be recorded`, cause)))

/**
 * How attempts share the worker (`a2a.push_*`): one attempt's deadline for the whole exchange, and
 * how many run at once in all, to one receiving host (the URL's host name), and for one client.
 */
export interface PushBounds {
  readonly deadlineMs: number
  readonly total: number
  readonly perHost: number
  readonly perClient: number
}

export const pushBoundsOf = (a2a: ResolvedConfig["a2a"]): PushBounds => ({
  deadlineMs: a2a.push_timeout_ms,
  total: a2a.push_concurrency,
  perHost: a2a.push_per_host,
  perClient: a2a.push_per_client
})

/** The defaults of `a2a.push_*` (docs/REFERENCE.md), as the config schema gives them. */
export const DEFAULT_PUSH_BOUNDS: PushBounds = pushBoundsOf(Schema.decodeSync(A2aSection)({}))

/** A notification as the scheduler counts it. */
export interface Slot {
  readonly deliveryId: string
  readonly client: string
  readonly host: string
}

/** The receiving host of a webhook URL ("" when it does not parse: its check will say why). */
export const hostOf = (url: string): string => {
  try {
    return new URL(url).hostname.toLowerCase()
  } catch {
    return ""
  }
}

/**
 * Which candidates start now, in their order, beside the attempts `running`: each while the total,
 * its host's and its client's counts stay within the bounds. Pure, for the tests.
 */
export const pickStarts = (candidates: ReadonlyArray<Slot>, running: Iterable<Slot>, bounds: PushBounds): ReadonlyArray<Slot> => {
  let total = 0
  const byHost = new Map<string, number>()
  const byClient = new Map<string, number>()
  const count = (s: Slot) => {
    total++
    byHost.set(s.host, (byHost.get(s.host) ?? 0) + 1)
    byClient.set(s.client, (byClient.get(s.client) ?? 0) + 1)
  }
  for (const s of running) count(s)
  const picked: Array<Slot> = []
  for (const c of candidates) {
    if (total >= bounds.total) break
    if ((byHost.get(c.host) ?? 0) >= bounds.perHost || (byClient.get(c.client) ?? 0) >= bounds.perClient) continue
    count(c)
    picked.push(c)
  }
  return picked
}

/**
 * The attempts in flight, each a fiber of its own in the caller's scope: `start` looks at the due
 * notifications (fairly: each client's oldest first, `PushConfigs.dueFair`) and starts those the
 * bounds allow, without waiting for any; `idle` waits until none is in flight. A slow receiver
 * holds its own attempt, its host's and its client's share, and nothing else.
 */
export const makeDeliverer = (rules: ReadonlyArray<AllowRule>, bounds: PushBounds) =>
  Effect.gen(function* () {
    const store = yield* PushConfigs
    const context = yield* Effect.context<PushConfigs | WebhookResolver>()
    const fibers = yield* FiberSet.make<void, never>()
    const running = new Map<string, Slot>()
    // Moves as each attempt ends (a slot freed, a row delivered, given up or due later).
    const ends = yield* SubscriptionRef.make(0)
    const start = Effect.gen(function* () {
      const due = yield* store.dueFair(yield* Clock.currentTimeMillis, {
        perClient: bounds.perClient,
        limit: Math.max(A2A_PUSH_PER_PASS, bounds.total * 2),
        except: [...running.keys()]
      })
      const picked = pickStarts(due.map((d) => ({ deliveryId: d.deliveryId, client: d.client, host: hostOf(d.url) })), running.values(), bounds)
      for (const slot of picked) {
        running.set(slot.deliveryId, slot)
        yield* FiberSet.run(fibers, attemptOne(slot.deliveryId, rules, bounds.deadlineMs).pipe(
          Effect.ensuring(Effect.zipRight(Effect.sync(() => running.delete(slot.deliveryId)), SubscriptionRef.update(ends, (n) => n + 1))),
          Effect.provide(context)
        ))
      }
      return picked.length
    })
    return {
      start,
      idle: FiberSet.awaitEmpty(fibers),
      inFlight: Effect.sync(() => running.size),
      /** How many attempts have ended so far (a moving mark for `endedSince`). */
      ended: SubscriptionRef.get(ends),
      /** Waits (without polling) until an attempt ends after the mark `seen` of `ended`. */
      endedSince: (seen: number) => ends.changes.pipe(Stream.filter((n) => n !== seen), Stream.runHead, Effect.asVoid)
    }
  })

/** One pass that waits for its attempts (the tests'): answers how many it started. */
export const deliverPass = (rules: ReadonlyArray<AllowRule>, bounds: PushBounds = DEFAULT_PUSH_BOUNDS) =>
  Effect.scoped(Effect.gen(function* () {
    const deliverer = yield* makeDeliverer(rules, bounds)
    const started = yield* deliverer.start
    yield* deliverer.idle
    return started
  }))

/**
 * The worker fiber, for the daemon's scope; a failed pass is logged and tried again after
 * A2A_PUSH_POLL_MS. Between passes it waits, with no poll, for the first of:
 *
 * - a config put in this process (`PushConfigs.putSince`);
 * - an attempt ending (`endedSince`: its slot is free for another due notification), which brings
 *   delivery alone, as the backoff's end below does (no state moved);
 * - the earliest backoff's end among the notifications not yet sent (`PushConfigs.nextDue`): the
 *   one wake-up the clock brings, since time is what makes a retry due;
 * - a run with an active config written in this process (the ledger's `written`, when the process
 *   has a ledger), or another process's commit to it (the change feed's `runs`; a change that names
 *   no run, as SQLite's, counts for every run). A pass follows such a change at most once per
 *   A2A_PUSH_POLL_MS (a live run writes many times a second): one pass for a burst.
 */
export const PushWorkerLive = <R>(render: PushRender<R>) =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const config = yield* AppConfig
      const rules = allowRulesOf(config.a2a.webhook_allow)
      const lifecycle = yield* Lifecycle
      const context = yield* Effect.context<PushConfigs | WebhookResolver | R>()
      // The attempts live in this scope: they end with the daemon, each at its deadline before that.
      const deliverer = yield* makeDeliverer(rules, pushBoundsOf(config.a2a))
      // Runs answer once the daemon is ready (its runs re-attached): the first pass waits for that.
      const ready = lifecycle.started
      // The runs whose configs the last pass found active: a change to another run wakes nothing.
      let watched: ReadonlySet<string> = new Set()
      // While a dispatch runs, the runs it will watch are not known yet: a change then (to a run its
      // read may have missed, as a run that ends while its new config is dispatched) wakes the next
      // turn whatever the run, or it would be lost until something else woke the worker.
      let dispatching = false
      const relevant = (runId: string | undefined) => dispatching || runId === undefined || watched.has(runId)
      // Dispatch and delivery fail apart: a failed dispatch does not hold back the due notifications.
      // Answers whether either failed.
      const dispatched = dispatch(render).pipe(
        Effect.tap((d) => Effect.sync(() => { watched = d.runs })),
        Effect.ensuring(Effect.sync(() => { dispatching = false })),
        Effect.as(false),
        Effect.catchAllCause((cause) => Effect.as(Effect.logWarning("push: a dispatch pass failed", cause), true)),
        Effect.provide(context)
      )
      const delivered = deliverer.start.pipe(Effect.as(false), Effect.catchAllCause((cause) => Effect.as(Effect.logWarning("push: a delivery pass failed", cause), true)))
      // A whole pass (dispatch, then delivery) or delivery alone; answers whether any part failed.
      const pass = (whole: boolean) => (whole ? Effect.zipWith(dispatched, delivered, (a, b) => a || b) : delivered)
      const store = yield* PushConfigs
      const feed = yield* Effect.serviceOption(ChangeFeed)
      const ledger = yield* Effect.serviceOption(Ledger)
      // A change to a watched run: subscribed now, so none is missed while a pass runs (one kept:
      // any number of them is one more pass).
      const runChanged = yield* Queue.sliding<void>(1)
      const offer = Effect.asVoid(Queue.offer(runChanged, undefined))
      if (Option.isSome(ledger)) {
        const here = yield* ledger.value.written
        yield* here.pipe(Stream.runForEach((runId) => (relevant(runId) ? offer : Effect.void)), Effect.forkScoped)
      }
      if (Option.isSome(feed)) {
        const runs = yield* feed.value.subscribe("runs")
        yield* runs.pipe(
          Stream.filter((c) => c.origin === "other" && relevant(c.key)),
          Stream.runForEach(() => offer),
          Effect.forkScoped
        )
      }
      const poll = Duration.millis(A2A_PUSH_POLL_MS)
      // When the last dispatch began (run changes bring one at most every A2A_PUSH_POLL_MS).
      let dispatchedAt = Number.NEGATIVE_INFINITY
      // One turn: a pass, then the wait for the next wake-up, which says what the next pass is: a
      // put, a run's change or a failure bring a whole one; an attempt's end or a due backoff only
      // delivery (the states have not moved). The marks are read before the pass: a put or an
      // attempt's end during it is a reason to look again at once.
      const turn = (whole: boolean) => Effect.gen(function* () {
        const putMark = yield* store.puts
        const endMark = yield* deliverer.ended
        if (whole) {
          // The dispatch reads every run it watches: changes before it are covered; changes during
          // it wake the next turn (`dispatching`).
          dispatching = true
          yield* Queue.takeAll(runChanged)
          dispatchedAt = yield* Clock.currentTimeMillis
        }
        const failed = yield* pass(whole)
        const now = yield* Clock.currentTimeMillis
        const due = yield* store.nextDue(now).pipe(
          Effect.catchAllCause((cause) => Effect.as(Effect.logWarning("push: reading when a notification is due failed", cause), Option.none<number>()))
        )
        const wakes: Array<Effect.Effect<boolean>> = [
          Effect.as(store.putSince(putMark), true),
          Effect.as(deliverer.endedSince(endMark), false),
          Effect.zipRight(
            Queue.take(runChanged),
            // Taken, then spaced: should another wake win the race meanwhile (an attempt's end),
            // the change is put back, or it would be lost with the losing branch.
            Effect.flatMap(Clock.currentTimeMillis, (t) => Effect.as(Effect.sleep(Duration.millis(Math.max(0, dispatchedAt + A2A_PUSH_POLL_MS - t))), true)).pipe(
              Effect.onInterrupt(() => offer)
            )
          )
        ]
        if (Option.isSome(due)) wakes.push(Effect.as(Effect.sleep(Duration.millis(Math.max(0, due.value - now))), false))
        if (failed) wakes.push(Effect.as(Effect.sleep(poll), true))
        return yield* Effect.raceAll(wakes)
      })
      yield* ready.pipe(Effect.zipRight(Effect.iterate(true, { while: () => true, body: turn })), Effect.forkScoped)
    })
  )
