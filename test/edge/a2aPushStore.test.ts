/**
 * The push store and the worker's passes on both dialects (`TestDb`): configs bounded per task, a
 * state enqueued once however often the dispatcher runs, retries at the row's backoff, a
 * notification given up after the bounded time or attempts, and the cascade when a config or its
 * run goes. Deliveries go to a loopback receiver; time is the TestClock.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, TestClock } from "effect"
import { parseAllowRule, type AllowRule } from "../../src/domain/a2a/webhookAllow.ts"
import { A2A_PUSH_ATTEMPTS_MAX, A2A_PUSH_CONFIGS_PER_TASK, A2A_PUSH_DELIVERY_MAX_MS } from "../../src/domain/limits.ts"
import { makePushConfigs, PushConfigs, type NewConfig } from "../../src/services/a2aPush/PushConfigs.ts"
import { backoffMs, deliverPass, dispatchPass, type TaskSnapshot } from "../../src/services/a2aPush/PushWorker.ts"
import { WebhookResolverTest } from "../../src/services/a2aPush/WebhookResolver.ts"
import { sweepPushConfigs } from "../../src/services/a2aPush/pushRetention.ts"
import { ClientQuotasFor } from "../../src/services/quotas/ClientQuotas.ts"
import { Ledger } from "../../src/services/runs/Ledger.ts"
import { LedgerLive } from "../../src/services/runs/LedgerSql.ts"
import { newRun } from "../runs/support/newRun.ts"
import { TestDb } from "../support/testDb.ts"
import { startReceiver } from "./support/pushReceiver.ts"

const Store = Layer.effect(PushConfigs, makePushConfigs).pipe(Layer.provide(TestDb))
const layer = Layer.merge(Store, WebhookResolverTest(new Map()))
const config = (runId: string, id: string, url = "http://127.0.0.1:9/h"): NewConfig => ({ runId, id, client: "alice", url, token: "tok", tokenGiven: true, authScheme: "", authCredentials: "" })
const rules: ReadonlyArray<AllowRule> = [parseAllowRule("127.0.0.1") as AllowRule]
const snapshot = (state: string, seq: number, terminal = false): TaskSnapshot => ({ state, seq, terminal, body: (id) => JSON.stringify({ task: { id: "run_a", metadata: { bridge: { delivery_id: id } } }, state }) })

describe("PushConfigs", () => {
  it.effect("at most limits.push_configs_per_client configs per client over its tasks, also when its puts race; another client keeps its own", () =>
    Effect.gen(function* () {
      const s = yield* PushConfigs
      const puts = yield* Effect.forEach(
        Array.from({ length: 12 }, (_, i) => i),
        (i) => Effect.either(s.put(config(`run_${i % 4}`, `c${i}`))),
        { concurrency: "unbounded" }
      )
      expect(puts.filter((p) => p._tag === "Right")).toHaveLength(3)
      const refused = puts.flatMap((p) => (p._tag === "Left" ? [p.left] : []))
      expect(refused.map((e) => e._tag)).toEqual(Array(9).fill("QuotaExceeded"))
      expect(refused[0]!.message).toContain("limits.push_configs_per_client")
      const stored = yield* Effect.forEach([0, 1, 2, 3], (i) => s.list(`run_${i}`))
      expect(stored.flat()).toHaveLength(3)
      // Replacing a stored config is no new one; another client has its own quota.
      const kept = stored.flat()[0]!
      expect((yield* Effect.either(s.put(config(kept.runId, kept.id, "http://127.0.0.1:10/again"))))._tag).toBe("Right")
      expect((yield* Effect.either(s.roomFor("alice")))._tag).toBe("Left")
      expect((yield* Effect.either(s.put({ ...config("run_0", "bobs"), client: "bob" })))._tag).toBe("Right")
    }).pipe(Effect.provide(Layer.effect(PushConfigs, makePushConfigs).pipe(Layer.provide(Layer.merge(TestDb, ClientQuotasFor({ push_configs_per_client: 3 })))))))

  it.effect("put, get, list, replace by id (its state kept), remove; at most A2A_PUSH_CONFIGS_PER_TASK per task", () =>
    Effect.gen(function* () {
      const s = yield* PushConfigs
      for (let i = 0; i < A2A_PUSH_CONFIGS_PER_TASK; i++) yield* s.put(config("run_a", `c${i}`))
      const over = yield* Effect.flip(s.put(config("run_a", "one-more")))
      expect(over._tag).toBe("TooManyConfigs")
      expect(yield* s.list("run_a")).toHaveLength(A2A_PUSH_CONFIGS_PER_TASK)
      // Another task has its own bound; the same id on another task is another config.
      expect((yield* s.put(config("run_b", "c0"))).runId).toBe("run_b")
      const c0 = (yield* s.get("run_a", "c0")).pipe(Option.getOrThrow)
      yield* s.advance(c0, "", "TASK_STATE_WORKING@1", false, { deliveryId: "d1", runSeq: 1, body: "{}" })
      const replaced = yield* s.put(config("run_a", "c0", "http://127.0.0.1:10/other"))
      expect(replaced).toMatchObject({ url: "http://127.0.0.1:10/other", lastState: "TASK_STATE_WORKING@1" })
      // A token the bridge made (the client gave none) stays when the config is replaced; a given one replaces it.
      expect((yield* s.put({ ...config("run_a", "c0"), token: "made-again", tokenGiven: false })).token).toBe("tok")
      expect((yield* s.put({ ...config("run_a", "c0"), token: "new", tokenGiven: true })).token).toBe("new")
      expect(yield* s.remove("run_a", "c0")).toBe(true)
      expect(yield* s.remove("run_a", "c0")).toBe(false)
      expect(Option.isNone(yield* s.get("run_a", "c0"))).toBe(true)
      // Its pending notification went with it.
      expect((yield* s.outbox("run_a")).map((d) => d.deliveryId)).toEqual([])
    }).pipe(Effect.provide(layer)))

  it.effect("the dispatcher enqueues each state once, however often it runs; a state visited again is a new notification", () =>
    Effect.gen(function* () {
      const s = yield* PushConfigs
      yield* s.put(config("run_a", "c"))
      const states = new Map<string, TaskSnapshot>([["run_a", snapshot("TASK_STATE_WORKING", 2)]])
      const render = (runId: string) => Effect.succeed(Option.fromNullable(states.get(runId)))
      expect(yield* dispatchPass(render)).toBe(1)
      expect(yield* dispatchPass(render)).toBe(0)
      // A new seq in the same state is not a state change.
      states.set("run_a", snapshot("TASK_STATE_WORKING", 9))
      expect(yield* dispatchPass(render)).toBe(0)
      states.set("run_a", snapshot("TASK_STATE_INPUT_REQUIRED", 10))
      expect(yield* dispatchPass(render)).toBe(1)
      states.set("run_a", snapshot("TASK_STATE_WORKING", 12))
      expect(yield* dispatchPass(render)).toBe(1)
      states.set("run_a", snapshot("TASK_STATE_COMPLETED", 15, true))
      expect(yield* dispatchPass(render)).toBe(1)
      expect((yield* s.outbox("run_a")).map((d) => d.state)).toEqual(["TASK_STATE_WORKING@2", "TASK_STATE_INPUT_REQUIRED@10", "TASK_STATE_WORKING@12", "TASK_STATE_COMPLETED@15"])
      // A finished task's config is no longer looked at.
      expect(yield* s.active(100)).toEqual([])
      const bodies = (yield* s.outbox("run_a")).map((d) => JSON.parse(d.body).task.metadata.bridge.delivery_id)
      expect(bodies).toEqual((yield* s.outbox("run_a")).map((d) => d.deliveryId))
    }).pipe(Effect.provide(layer)))

  it.effect("a stale advance (another pass moved the config first) writes nothing", () =>
    Effect.gen(function* () {
      const s = yield* PushConfigs
      const c = yield* s.put(config("run_a", "c"))
      expect(yield* s.advance(c, "", "TASK_STATE_WORKING@1", false, { deliveryId: "d1", runSeq: 1, body: "{}" })).toBe(true)
      expect(yield* s.advance(c, "", "TASK_STATE_WORKING@1", false, { deliveryId: "d2", runSeq: 1, body: "{}" })).toBe(false)
      expect((yield* s.outbox("run_a")).map((d) => d.deliveryId)).toEqual(["d1"])
    }).pipe(Effect.provide(layer)))

  it.effect("a failing receiver is retried at the backoff, then delivered; a notification past the bounded time is given up", () =>
    Effect.gen(function* () {
      const receiver = yield* Effect.acquireRelease(Effect.promise(startReceiver), (r) => Effect.promise(r.close))
      const s = yield* PushConfigs
      const c = yield* s.put(config("run_a", "c", receiver.url))
      receiver.script.push({ status: 500 }, { status: 500 })
      yield* s.advance(c, "", "TASK_STATE_WORKING@1", false, { deliveryId: "d1", runSeq: 1, body: "{}" })
      expect(yield* deliverPass(rules)).toBe(1)
      // Not due again before the backoff.
      expect(yield* deliverPass(rules)).toBe(0)
      yield* TestClock.adjust(backoffMs(1))
      expect(yield* deliverPass(rules)).toBe(1)
      yield* TestClock.adjust(backoffMs(1) - 1)
      expect(yield* deliverPass(rules)).toBe(0)
      yield* TestClock.adjust(backoffMs(2))
      expect(yield* deliverPass(rules)).toBe(1)
      const [row] = yield* s.outbox("run_a")
      expect(row).toMatchObject({ attempts: 3, outcome: "HTTP 200" })
      expect(receiver.received.map((r) => r.status)).toEqual([500, 500, 200])

      // Past A2A_PUSH_DELIVERY_MAX_MS a failing notification is given up, not retried for ever.
      receiver.script.push(...Array.from({ length: 5 }, () => ({ status: 500 })))
      const c2 = yield* s.put(config("run_b", "c", receiver.url))
      yield* s.advance(c2, "", "TASK_STATE_WORKING@1", false, { deliveryId: "d2", runSeq: 1, body: "{}" })
      yield* TestClock.adjust(A2A_PUSH_DELIVERY_MAX_MS)
      yield* deliverPass(rules)
      const [gone] = yield* s.outbox("run_b")
      expect(gone!.doneAt).not.toBeNull()
      expect(gone!.outcome).toBe("gave up: HTTP 500")
    }).pipe(Effect.scoped, Effect.provide(layer)))

  it("the backoff doubles from 1 s to at most 10 minutes, and the attempts are bounded", () => {
    expect([1, 2, 3, 4].map(backoffMs)).toEqual([1000, 2000, 4000, 8000])
    expect(backoffMs(40)).toBe(10 * 60 * 1000)
    expect(A2A_PUSH_ATTEMPTS_MAX).toBeGreaterThan(0)
  })

  it.effect("a refused webhook at delivery (the allow list no longer names it) is retried, never POSTed", () =>
    Effect.gen(function* () {
      const receiver = yield* Effect.acquireRelease(Effect.promise(startReceiver), (r) => Effect.promise(r.close))
      const s = yield* PushConfigs
      const c = yield* s.put(config("run_a", "c", receiver.url))
      yield* s.advance(c, "", "TASK_STATE_WORKING@1", false, { deliveryId: "d1", runSeq: 1, body: "{}" })
      yield* deliverPass([parseAllowRule("hooks.example.com") as AllowRule])
      const [row] = yield* s.outbox("run_a")
      expect(row).toMatchObject({ attempts: 1, doneAt: null })
      expect(row!.outcome).toContain("loopback")
      expect(receiver.received).toEqual([])
    }).pipe(Effect.scoped, Effect.provide(layer)))

  it.effect("forget (the run is gone) takes its configs and notifications", () =>
    Effect.gen(function* () {
      const s = yield* PushConfigs
      const c = yield* s.put(config("run_a", "c"))
      yield* s.put(config("run_b", "c"))
      yield* s.advance(c, "", "TASK_STATE_WORKING@1", false, { deliveryId: "d1", runSeq: 1, body: "{}" })
      expect([...(yield* s.runIds)].sort()).toEqual(["run_a", "run_b"])
      expect(yield* s.forget(["run_a"])).toBe(1)
      expect(yield* s.runIds).toEqual(["run_b"])
      expect(yield* s.outbox("run_a")).toEqual([])
    }).pipe(Effect.provide(layer)))
})

describe("push retention", () => {
  const withLedger = Layer.mergeAll(Layer.effect(PushConfigs, makePushConfigs), LedgerLive).pipe(Layer.provideMerge(TestDb))

  it.effect("a run's configs and notifications go once the ledger no longer holds the run, and not before", () =>
    Effect.gen(function* () {
      const s = yield* PushConfigs
      const ledger = yield* Ledger
      yield* ledger.insert(newRun("run_old"))
      yield* ledger.insert(newRun("run_live"))
      yield* s.put(config("run_old", "c1"))
      yield* s.put(config("run_old", "c2"))
      yield* s.put(config("run_live", "c1"))
      const c1 = (yield* s.get("run_old", "c1")).pipe(Option.getOrThrow)
      yield* s.advance(c1, "", "TASK_STATE_COMPLETED@3", true, { deliveryId: "d-old", runSeq: 3, body: "{}" })
      yield* ledger.modify("run_old", () => ({ change: { status: "completed" }, result: null }))
      // Ended but still held: nothing goes.
      expect(yield* sweepPushConfigs).toBe(0)
      yield* TestClock.adjust(10)
      expect(yield* ledger.sweep(5)).toBe(1)
      expect(yield* sweepPushConfigs).toBe(2)
      expect(yield* s.list("run_old")).toEqual([])
      expect(yield* s.outbox("run_old")).toEqual([])
      expect((yield* s.list("run_live")).map((c) => c.id)).toEqual(["c1"])
      expect(yield* sweepPushConfigs).toBe(0)
    }).pipe(Effect.provide(withLedger)))
})
