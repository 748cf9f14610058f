/**
 * The push worker: one fiber in the daemon's scope that, every A2A_PUSH_POLL_MS,
 *
 * 1. dispatches: for every config whose task has not ended, reads its run's current state (through
 *    `render`, which the daemon wires to the A2A face's task view, redacted as every read is) and,
 *    when the task state differs from the one last enqueued, enqueues the task as a notification
 *    (`PushConfigs.advance`: one transaction, once per state). At start this catches up every state
 *    a run reached while the daemon was down;
 * 2. delivers every due notification: the webhook URL is checked again (allow list, DNS now, every
 *    address public), the POST goes to the checked address, a 2xx marks it delivered; anything else
 *    is retried later with exponential backoff (`backoffMs`) until A2A_PUSH_ATTEMPTS_MAX attempts or
 *    A2A_PUSH_DELIVERY_MAX_MS after it was enqueued, then given up (the outcome says why).
 *
 * The backoff lives in the row (`next_at`), not in a fiber's Schedule, so a restart resumes it.
 * Delivery is at-least-once: a POST that reached the receiver but whose answer was lost is sent
 * again, with the same delivery id.
 */
import { randomUUID } from "node:crypto"
import { Cause, Clock, Effect, Layer, Option, Schedule } from "effect"
import { AppConfig } from "../../config/AppConfig.ts"
import { Lifecycle } from "../../common/Lifecycle.ts"
import { parseAllowRule, type AllowRule } from "../../domain/a2a/webhookAllow.ts"
import {
  A2A_PUSH_ATTEMPTS_MAX,
  A2A_PUSH_BACKOFF_FIRST_MS,
  A2A_PUSH_BACKOFF_MAX_MS,
  A2A_PUSH_DELIVERY_MAX_MS,
  A2A_PUSH_PER_PASS,
  A2A_PUSH_POLL_MS,
  A2A_PUSH_POST_TIMEOUT_MS
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

export const dispatchPass = <R>(render: PushRender<R>) =>
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
    return enqueued
  })

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
const send = (d: Delivery, rules: ReadonlyArray<AllowRule>, timestamp: number): Effect.Effect<Attempt, never, PushConfigs | WebhookResolver> =>
  Effect.gen(function* () {
    const store = yield* PushConfigs
    const config = yield* store.get(d.runId, d.configId)
    if (Option.isNone(config)) return { _tag: "NoConfig" } as const
    const target = yield* checkWebhook(config.value.url, rules)
    const status = yield* postNotification(target, { deliveryId: d.deliveryId, body: d.body, ...config.value }, String(timestamp), A2A_PUSH_POST_TIMEOUT_MS)
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
const attemptOne = (d: Delivery, rules: ReadonlyArray<AllowRule>) =>
  Effect.gen(function* () {
    const store = yield* PushConfigs
    const result = yield* send(d, rules, yield* Clock.currentTimeMillis)
    const now = yield* Clock.currentTimeMillis
    const attempts = d.attempts + 1
    if (result._tag === "NoConfig") return yield* store.giveUp(d.deliveryId, d.attempts, "the config was deleted")
    if (result._tag === "Sent") return yield* store.delivered(d.deliveryId, result.outcome)
    if (attempts >= A2A_PUSH_ATTEMPTS_MAX || now - d.createdAt >= A2A_PUSH_DELIVERY_MAX_MS) {
      yield* Effect.logWarning(`push: notification ${d.deliveryId} of task ${d.runId} given up after ${attempts} attempts (${result.reason})`)
      return yield* store.giveUp(d.deliveryId, attempts, result.reason)
    }
    yield* store.retryAt(d.deliveryId, attempts, now + backoffMs(attempts), result.reason)
  }).pipe(Effect.catchAllCause((cause) => Effect.logWarning(`push: the attempt of notification ${d.deliveryId} could not be recorded`, cause)))

export const deliverPass = (rules: ReadonlyArray<AllowRule>) =>
  Effect.gen(function* () {
    const store = yield* PushConfigs
    const due = yield* store.due(yield* Clock.currentTimeMillis, A2A_PUSH_PER_PASS)
    yield* Effect.forEach(due, (d) => attemptOne(d, rules), { discard: true })
    return due.length
  })

/** The worker fiber, for the daemon's scope; a failed pass is logged and the next one tries again. */
export const PushWorkerLive = <R>(render: PushRender<R>) =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const config = yield* AppConfig
      const rules = allowRulesOf(config.a2a.webhook_allow)
      const lifecycle = yield* Lifecycle
      const context = yield* Effect.context<PushConfigs | WebhookResolver | R>()
      // Runs answer once the daemon is ready (its runs re-attached): the first pass waits for that.
      const ready = lifecycle.phase.pipe(Effect.repeat({ schedule: Schedule.spaced("50 millis"), until: (p) => p !== "starting" }))
      // Dispatch and delivery fail apart: a failed dispatch does not hold back the due notifications.
      const pass = Effect.zipRight(
        dispatchPass(render).pipe(Effect.catchAllCause((cause) => Effect.logWarning("push: a dispatch pass failed", cause))),
        deliverPass(rules).pipe(Effect.catchAllCause((cause) => Effect.logWarning("push: a delivery pass failed", cause)))
      ).pipe(Effect.provide(context))
      yield* ready.pipe(Effect.zipRight(pass.pipe(Effect.repeat(Schedule.spaced(`${A2A_PUSH_POLL_MS} millis`)))), Effect.forkScoped)
    })
  )
