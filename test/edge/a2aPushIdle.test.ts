/**
 * The push worker wakes on events, never on a poll (issues 41 and 39). Its passes are counted (each
 * reads the active configs once) on the test clock, and notifications go to a loopback receiver:
 *
 * - with nothing to do it passes once at start and never again (ten minutes of clock: no pass);
 * - a config put here is dispatched and delivered with the clock standing still;
 * - while its config is active and nothing happens, it does not pass (it used to every
 *   A2A_PUSH_POLL_MS); a write to its run in this process (the ledger's `written`) wakes it at once,
 *   and so does another process's commit to its run (the change feed's `runs`, keyed), but not one
 *   to another run;
 * - a failed delivery is tried again at its backoff (`backoffMs(1)`), not a millisecond before, with
 *   nothing else moving the clock;
 * - once the task ended and its notifications are out, it is idle again: no pass.
 *
 * On both dialects (`TestDb`).
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Layer, Option, Ref, TestClock } from "effect"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { LifecycleReady } from "../../src/common/Lifecycle.ts"
import { A2A_PUSH_POLL_MS } from "../../src/domain/limits.ts"
import { makePushConfigs, PushConfigs } from "../../src/services/a2aPush/PushConfigs.ts"
import { backoffMs, PushWorkerLive, type TaskSnapshot } from "../../src/services/a2aPush/PushWorker.ts"
import { WebhookResolverTest } from "../../src/services/a2aPush/WebhookResolver.ts"
import { Ledger } from "../../src/services/runs/Ledger.ts"
import { LedgerTest } from "../../src/services/runs/LedgerTest.ts"
import { ChangeFeedBump, ChangeFeedTest } from "../../src/storage/ChangeFeed.ts"
import { testConfig } from "../support/daemon.ts"
import { sleep, until } from "../support/poll.ts"
import { newConfig, newRun } from "../support/records.ts"
import { TestDb } from "../support/testDb.ts"
import { startReceiver } from "./support/pushReceiver.ts"

/** The real store over `TestDb`, counting the worker's passes (its reads of the active configs). */
const counted = (passes: Ref.Ref<number>) =>
  Layer.effect(
    PushConfigs,
    Effect.map(makePushConfigs, (s) => ({ ...s, active: (limit: number) => Effect.zipRight(Ref.update(passes, (n) => n + 1), s.active(limit)) }))
  ).pipe(Layer.provide(TestDb))

/** Waits (in wall time: a pass and a POST answer on the event loop) until `read` holds. */
const reach = <A>(read: () => A, done: (a: A) => boolean, what: string) => Effect.promise(() => until(read, done, { what, withinMs: 60_000 }))

/** A negative check: a fixed wait in wall time for what must not come, then one look. */
const still = (passes: Ref.Ref<number>, n: number) =>
  Effect.gen(function* () {
    yield* Effect.promise(() => sleep(400))
    expect(yield* Ref.get(passes)).toBe(n)
  })

const snapshot = (state: string, seq: number, terminal = false): TaskSnapshot => ({ state, seq, terminal, body: () => JSON.stringify({ state, seq }) })

describe("the push worker wakes on events", () => {
  it.scoped("idle: no pass after the start's; a put, a write to its run here, another process's commit to it and a due retry wake it", () =>
    Effect.gen(function* () {
      const receiver = yield* Effect.acquireRelease(Effect.promise(startReceiver), (r) => Effect.promise(r.close))
      const passes = yield* Ref.make(0)
      const states = new Map<string, TaskSnapshot>()
      const render = (runId: string) => Effect.sync(() => Option.fromNullable(states.get(runId)))
      const base = Layer.mergeAll(
        counted(passes), WebhookResolverTest(new Map()), AppConfigLive(testConfig({ a2a: { webhook_allow: ["127.0.0.1"] } })), LifecycleReady, ChangeFeedTest, LedgerTest
      )
      const context = yield* Layer.build(Layer.provideMerge(PushWorkerLive(render), base))
      yield* Effect.gen(function* () {
        const ledger = yield* Ledger
        const bump = yield* ChangeFeedBump
        const passed = (n: number) => reach(() => Effect.runSync(Ref.get(passes)), (k) => k >= n, `pass ${n}`)
        const delivered = (n: number) => reach(() => receiver.received.length, (k) => k >= n, `notification ${n}`)
        const store = yield* PushConfigs
        // Every notification recorded as sent, and the pass its attempt's end brings done.
        const settled = Effect.zipRight(
          Effect.promise(() => until(() => Effect.runPromise(store.outbox("run_a")), (rows) => rows.every((r) => r.doneAt !== null), { what: "every notification recorded as sent" })),
          Effect.promise(() => sleep(400))
        )
        yield* passed(1)
        // Ten minutes with nothing to do: no pass (a poll, or an idle look every 30 s, would show).
        for (let i = 0; i < 10; i++) yield* TestClock.adjust("1 minute")
        yield* still(passes, 1)

        // A config put here: dispatched and delivered, the clock standing still.
        yield* ledger.insert(newRun("run_a"))
        states.set("run_a", snapshot("TASK_STATE_WORKING", 1))
        yield* store.put(newConfig("run_a", "c", { url: receiver.url, token: "t" }))
        yield* delivered(1)
        expect(receiver.received[0]!.json).toEqual({ state: "TASK_STATE_WORKING", seq: 1 })
        // Busy (the config is active), nothing happening: no pass, however long.
        yield* settled
        const busy = Effect.runSync(Ref.get(passes))
        for (let i = 0; i < 20; i++) yield* TestClock.adjust(`${A2A_PUSH_POLL_MS} millis`)
        yield* still(passes, busy)

        // The run written here: a pass at once, the new state delivered.
        states.set("run_a", snapshot("TASK_STATE_INPUT_REQUIRED", 2))
        yield* ledger.modify("run_a", () => ({ change: { events: [{ type: "clarify.requested", data: {} }] }, result: undefined }))
        yield* delivered(2)
        expect(receiver.received[1]!.json).toEqual({ state: "TASK_STATE_INPUT_REQUIRED", seq: 2 })

        // Another process's commit to another run: nothing. To this run: a pass (at most one per
        // A2A_PUSH_POLL_MS: the clock moves that much first); its delivery fails (HTTP 500).
        yield* settled
        yield* TestClock.adjust(`${A2A_PUSH_POLL_MS} millis`)
        const before = Effect.runSync(Ref.get(passes))
        yield* bump.otherCommitted("runs", "run_other")
        yield* still(passes, before)
        receiver.script.push({ status: 500 })
        states.set("run_a", snapshot("TASK_STATE_WORKING", 3))
        yield* bump.otherCommitted("runs", "run_a")
        yield* delivered(3)
        expect(receiver.received[2]!.status).toBe(500)
        // Tried again at its backoff, not before; nothing else moves the clock.
        yield* Effect.promise(() => until(() => Effect.runPromise(store.outbox("run_a")), (rows) => rows.some((r) => r.attempts === 1 && r.doneAt === null), { what: "the failed attempt recorded" }))
        yield* TestClock.adjust(`${backoffMs(1) - 1} millis`)
        yield* Effect.promise(() => sleep(400))
        expect(receiver.received).toHaveLength(3)
        yield* TestClock.adjust("1 millis")
        yield* delivered(4)
        expect(receiver.received[3]!).toMatchObject({ status: 200, json: { state: "TASK_STATE_WORKING", seq: 3 } })

        // The task ends: its last notification, then idle again.
        yield* TestClock.adjust(`${A2A_PUSH_POLL_MS} millis`)
        states.set("run_a", snapshot("TASK_STATE_COMPLETED", 4, true))
        yield* ledger.modify("run_a", () => ({ change: { status: "completed" }, result: undefined }))
        yield* delivered(5)
        yield* settled
        const done = Effect.runSync(Ref.get(passes))
        for (let i = 0; i < 10; i++) yield* TestClock.adjust("1 minute")
        yield* still(passes, done)
        expect(receiver.received).toHaveLength(5)
      }).pipe(Effect.provide(context))
    }))

  it.scoped("a change to a run while a dispatch reads it wakes the next turn: its new state is not lost", () =>
    Effect.gen(function* () {
      const receiver = yield* Effect.acquireRelease(Effect.promise(startReceiver), (r) => Effect.promise(r.close))
      const passes = yield* Ref.make(0)
      const states = new Map<string, TaskSnapshot>()
      // The dispatch's read of run_b takes its state, then waits for the gate: the run changes in
      // between, before the worker knows it watches run_b.
      const entered = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      let gated = true
      const render = (runId: string) => Effect.gen(function* () {
        const taken = Option.fromNullable(states.get(runId))
        if (runId === "run_b" && gated) {
          gated = false
          yield* Deferred.succeed(entered, undefined)
          yield* Deferred.await(gate)
        }
        return taken
      })
      const base = Layer.mergeAll(
        counted(passes), WebhookResolverTest(new Map()), AppConfigLive(testConfig({ a2a: { webhook_allow: ["127.0.0.1"] } })), LifecycleReady, ChangeFeedTest, LedgerTest
      )
      const context = yield* Layer.build(Layer.provideMerge(PushWorkerLive(render), base))
      yield* Effect.gen(function* () {
        const ledger = yield* Ledger
        const store = yield* PushConfigs
        const delivered = (n: number) => reach(() => receiver.received.length, (k) => k >= n, `notification ${n}`)
        // The start's pass first (the worker subscribed to the ledger's writes by then).
        yield* reach(() => Effect.runSync(Ref.get(passes)), (k) => k >= 1, "the start's pass")
        yield* Effect.promise(() => sleep(200))
        yield* ledger.insert(newRun("run_b"))
        states.set("run_b", snapshot("TASK_STATE_WORKING", 1))
        yield* store.put(newConfig("run_b", "c", { url: receiver.url, token: "t" }))
        yield* Deferred.await(entered)
        // The run ends while the dispatch holds its earlier state.
        states.set("run_b", snapshot("TASK_STATE_COMPLETED", 2, true))
        yield* ledger.modify("run_b", () => ({ change: { status: "completed" }, result: undefined }))
        yield* Deferred.succeed(gate, undefined)
        yield* delivered(1)
        expect(receiver.received[0]!.json).toEqual({ state: "TASK_STATE_WORKING", seq: 1 })
        // The pass the change during the dispatch brings (at most one per A2A_PUSH_POLL_MS).
        yield* TestClock.adjust(`${A2A_PUSH_POLL_MS} millis`)
        yield* delivered(2)
        expect(receiver.received[1]!.json).toEqual({ state: "TASK_STATE_COMPLETED", seq: 2 })
      }).pipe(Effect.provide(context))
    }))
})
