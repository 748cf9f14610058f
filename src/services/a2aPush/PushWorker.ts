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
import { Clock, Effect, Layer, Option, Schedule } from "effect"
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
        if (yield* store.advance(config, config.lastState, `${s.state}@${s.seq}`, s.terminal, { deliveryId, runSeq: s.seq, body: s.body(deliveryId) })) enqueued++
      }
    }
    return enqueued
  })

const attemptOne = (d: Delivery, rules: ReadonlyArray<AllowRule>) =>
  Effect.gen(function* () {
    const store = yield* PushConfigs
    const config = yield* store.get(d.runId, d.configId)
    if (Option.isNone(config)) return yield* store.giveUp(d.deliveryId, d.attempts, "the config was deleted")
    const now = yield* Clock.currentTimeMillis
    const attempts = d.attempts + 1
    const sent = yield* checkWebhook(config.value.url, rules).pipe(
      Effect.mapError((e) => e.reason),
      Effect.flatMap((target) =>
        Effect.mapError(
          postNotification(target, { deliveryId: d.deliveryId, body: d.body, ...config.value }, String(now), A2A_PUSH_POST_TIMEOUT_MS),
          (e) => e.reason
        )
      ),
      Effect.either
    )
    if (sent._tag === "Right") return yield* store.delivered(d.deliveryId, `HTTP ${sent.right}`)
    const outcome = sent.left
    if (attempts >= A2A_PUSH_ATTEMPTS_MAX || now - d.createdAt >= A2A_PUSH_DELIVERY_MAX_MS) {
      yield* Effect.logWarning(`push: notification ${d.deliveryId} of task ${d.runId} given up after ${attempts} attempts (${outcome})`)
      return yield* store.giveUp(d.deliveryId, attempts, outcome)
    }
    yield* store.retryAt(d.deliveryId, attempts, now + backoffMs(attempts), outcome)
  })

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
      const pass = Effect.zipRight(dispatchPass(render), deliverPass(rules)).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("push: a pass failed", cause)),
        Effect.provide(context)
      )
      yield* ready.pipe(Effect.zipRight(pass.pipe(Effect.repeat(Schedule.spaced(`${A2A_PUSH_POLL_MS} millis`)))), Effect.forkScoped)
    })
  )
