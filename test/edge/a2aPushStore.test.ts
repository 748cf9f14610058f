/**
 * The push store and the worker's passes on both dialects (`TestDb`): configs bounded per task, a
 * state enqueued once however often the dispatcher runs, retries at the row's backoff, a
 * notification given up after the bounded time or attempts, and the cascade when a config or its
 * run goes. Deliveries go to a loopback receiver; time is the TestClock.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Layer, Option, Redacted, TestClock } from "effect"
import { parseAllowRule, type AllowRule } from "../../src/domain/a2a/webhookAllow.ts"
import { A2A_PUSH_ATTEMPTS_MAX, A2A_PUSH_CONFIGS_PER_TASK, A2A_PUSH_DELIVERY_MAX_MS } from "../../src/domain/limits.ts"
import { makePushConfigs, PushConfigs, type NewConfig } from "../../src/services/a2aPush/PushConfigs.ts"
import { backoffMs, deliverPass, dispatchPass, type TaskSnapshot } from "../../src/services/a2aPush/PushWorker.ts"
import { ResolveFailed, WebhookResolver, WebhookResolverTest } from "../../src/services/a2aPush/WebhookResolver.ts"
import { sweepPushConfigs } from "../../src/services/a2aPush/pushRetention.ts"
import { ClientQuotasFor } from "../../src/services/quotas/ClientQuotas.ts"
import { Ledger } from "../../src/services/runs/Ledger.ts"
import { LedgerLive } from "../../src/services/runs/LedgerSql.ts"
import { newConfig, newRun } from "../support/records.ts"
import { TestDb } from "../support/testDb.ts"
import { documentedVerifier, startReceiver } from "./support/pushReceiver.ts"

const Store = Layer.effect(PushConfigs, makePushConfigs).pipe(Layer.provide(TestDb))
const layer = Layer.merge(Store, WebhookResolverTest(new Map()))
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
const config = (runId: string, id: string, url = "http://127.0.0.1:9/h"): NewConfig => newConfig(runId, id, { url, signingSecret: Redacted.make(SECRET) })
const rules: ReadonlyArray<AllowRule> = [parseAllowRule("127.0.0.1") as AllowRule, parseAllowRule("bad.test") as AllowRule]
/** A resolver that dies (throws) for bad.test: a failure no code path expected. */
const dyingResolver = Layer.succeed(WebhookResolver, {
  resolve: (host) => (host === "bad.test" ? Effect.sync(() => { throw new Error("resolver exploded") }) : Effect.fail(new ResolveFailed({ host, reason: "not found" })))
})
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

  it.effect("a row whose delivery fails in any way (a defect, a header Node refuses) counts its attempt and backs off, delays no other client's row, and is given up at the limit", () =>
    Effect.gen(function* () {
      const receiver = yield* Effect.acquireRelease(Effect.promise(startReceiver), (r) => Effect.promise(r.close))
      const s = yield* PushConfigs
      // Older rows first: the resolver dies on bad.test (a defect, not a typed failure), and a config
      // stored before values were checked carries a token Node refuses in a header.
      const dies = yield* s.put({ ...config("run_a", "c", `http://bad.test:${receiver.port}/h`), client: "mallory" })
      yield* s.advance(dies, "", "TASK_STATE_WORKING@1", false, { deliveryId: "d-dies", runSeq: 1, body: "{}" })
      const badToken = yield* s.put({ ...config("run_b", "c", receiver.url), client: "mallory", token: "tok€" })
      yield* s.advance(badToken, "", "TASK_STATE_WORKING@1", false, { deliveryId: "d-token", runSeq: 1, body: "{}" })
      yield* TestClock.adjust(1)
      const good = yield* s.put({ ...config("run_c", "c", receiver.url), client: "bob" })
      yield* s.advance(good, "", "TASK_STATE_WORKING@1", false, { deliveryId: "d-good", runSeq: 1, body: "{}" })

      yield* deliverPass(rules).pipe(Effect.provide(dyingResolver))
      expect(receiver.received.map((r) => r.headers["x-a2a-delivery-id"])).toEqual(["d-good"])
      const [good1] = yield* s.outbox("run_c")
      expect(good1).toMatchObject({ attempts: 1, outcome: "HTTP 200" })
      const now = yield* Clock.currentTimeMillis
      for (const runId of ["run_a", "run_b"]) {
        const [row] = yield* s.outbox(runId)
        expect(row).toMatchObject({ attempts: 1, doneAt: null, nextAt: now + backoffMs(1) })
      }
      expect((yield* s.outbox("run_a"))[0]!.outcome).toContain("resolver exploded")
      expect((yield* s.outbox("run_b"))[0]!.outcome).toContain("Invalid character in header content")

      // Past the documented limit both are given up, not tried for ever.
      yield* TestClock.adjust(A2A_PUSH_DELIVERY_MAX_MS)
      yield* deliverPass(rules).pipe(Effect.provide(dyingResolver))
      for (const runId of ["run_a", "run_b"]) {
        const [row] = yield* s.outbox(runId)
        expect(row!.attempts).toBe(2)
        expect(row!.doneAt).not.toBeNull()
        expect(row!.outcome).toMatch(/^gave up: /)
      }
    }).pipe(Effect.scoped, Effect.provide(layer)))

  it.effect("dueFair: each client's oldest first, then each one's next, at most perClient of one client, leaving out those in flight", () =>
    Effect.gen(function* () {
      const s = yield* PushConfigs
      const enqueue = (runId: string, client: string, deliveryId: string) =>
        Effect.gen(function* () {
          const c = yield* s.put({ ...config(runId, "c", `http://${client}.test/h`), client })
          yield* s.advance(c, "", "TASK_STATE_WORKING@1", false, { deliveryId, runSeq: 1, body: "{}" })
          yield* TestClock.adjust(1)
        })
      for (let i = 1; i <= 4; i++) yield* enqueue(`run_a${i}`, "alice", `a${i}`)
      yield* enqueue("run_b1", "bob", "b1")
      yield* enqueue("run_b2", "bob", "b2")
      yield* enqueue("run_c1", "carol", "c1")
      const now = yield* Clock.currentTimeMillis
      const ids = (rows: ReadonlyArray<{ deliveryId: string }>) => rows.map((r) => r.deliveryId)
      expect(ids(yield* s.dueFair(now, { perClient: 2, limit: 100, except: [] }))).toEqual(["a1", "b1", "c1", "a2", "b2"])
      expect(ids(yield* s.dueFair(now, { perClient: 2, limit: 3, except: [] }))).toEqual(["a1", "b1", "c1"])
      expect(ids(yield* s.dueFair(now, { perClient: 2, limit: 100, except: ["a1", "b1"] }))).toEqual(["a2", "b2", "c1", "a3"])
      expect((yield* s.dueFair(now, { perClient: 1, limit: 1, except: [] }))[0]).toEqual({ deliveryId: "a1", runId: "run_a1", client: "alice", url: "http://alice.test/h" })
      // Not yet due: none.
      expect(yield* s.dueFair(-1, { perClient: 2, limit: 100, except: [] })).toEqual([])
    }).pipe(Effect.provide(layer)))

  it.effect("the signing secret: kept when the config is replaced, never printed with a config, and what the receiver verifies each notification with", () =>
    Effect.gen(function* () {
      const receiver = yield* Effect.acquireRelease(Effect.promise(startReceiver), (r) => Effect.promise(r.close))
      const s = yield* PushConfigs
      const made = yield* s.put(config("run_a", "c", receiver.url))
      expect(Redacted.value(made.signingSecret)).toBe(SECRET)
      const replaced = yield* s.put({ ...config("run_a", "c", receiver.url), signingSecret: Redacted.make("whsec_another") })
      expect(Redacted.value(replaced.signingSecret)).toBe(SECRET)
      // A config logged or printed by accident shows no secret.
      const listed = yield* s.list("run_a")
      expect(JSON.stringify(replaced) + String(replaced.signingSecret) + JSON.stringify(listed) + `${listed[0]!.signingSecret}`).not.toContain(SECRET.slice(6))
      yield* s.advance(made, "", "TASK_STATE_WORKING@1", false, { deliveryId: "d1", runSeq: 1, body: "{\"task\":{}}" })
      yield* deliverPass(rules)
      const [got] = receiver.received
      const nowSeconds = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      expect(got!.headers["webhook-id"]).toBe("d1")
      expect(got!.headers["webhook-timestamp"]).toBe(String(nowSeconds))
      expect(documentedVerifier()(SECRET, got!.headers, got!.body, nowSeconds)).toBe(true)
      expect(documentedVerifier()("whsec_" + Buffer.from("not the key").toString("base64"), got!.headers, got!.body, nowSeconds)).toBe(false)
    }).pipe(Effect.scoped, Effect.provide(layer)))

  it.effect("a config made before signing secrets (none stored) sends no webhook-* headers, and is given one when replaced", () =>
    Effect.gen(function* () {
      const receiver = yield* Effect.acquireRelease(Effect.promise(startReceiver), (r) => Effect.promise(r.close))
      const s = yield* PushConfigs
      const old = yield* s.put({ ...config("run_a", "c", receiver.url), signingSecret: Redacted.make("") })
      yield* s.advance(old, "", "TASK_STATE_WORKING@1", false, { deliveryId: "d1", runSeq: 1, body: "{}" })
      yield* deliverPass(rules)
      expect(receiver.received[0]!.headers["webhook-signature"]).toBeUndefined()
      expect(receiver.received[0]!.headers["x-a2a-signature"]).toMatch(/^v1=/)
      expect(Redacted.value((yield* s.put(config("run_a", "c", receiver.url))).signingSecret)).toBe(SECRET)
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
