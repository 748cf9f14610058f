/**
 * The push worker does not poll while it has nothing to do (issue 41: an idle daemon wakes only
 * for what a clock must bring). Its passes are counted (each reads the active configs once) on the
 * test clock: with no config and no notification it passes once at start and then every
 * A2A_PUSH_IDLE_MS only; a config put in this process wakes it with the clock standing still;
 * another process's commit to the runs wakes it at the busy pace; while a config is active it
 * passes every A2A_PUSH_POLL_MS, as it did. On both dialects (`TestDb`).
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Option, Ref, TestClock } from "effect"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { LifecycleReady } from "../../src/common/Lifecycle.ts"
import { A2A_PUSH_IDLE_MS, A2A_PUSH_POLL_MS } from "../../src/domain/limits.ts"
import { makePushConfigs, PushConfigs } from "../../src/services/a2aPush/PushConfigs.ts"
import { PushWorkerLive } from "../../src/services/a2aPush/PushWorker.ts"
import { WebhookResolverTest } from "../../src/services/a2aPush/WebhookResolver.ts"
import { ChangeFeedBump, ChangeFeedTest } from "../../src/storage/ChangeFeed.ts"
import { testConfig } from "../support/daemon.ts"
import { newConfig } from "../support/records.ts"
import { TestDb } from "../support/testDb.ts"

/** The real store over `TestDb`, counting the worker's passes (its reads of the active configs). */
const counted = (passes: Ref.Ref<number>) =>
  Layer.effect(
    PushConfigs,
    Effect.map(makePushConfigs, (s) => ({ ...s, active: (limit: number) => Effect.zipRight(Ref.update(passes, (n) => n + 1), s.active(limit)) }))
  ).pipe(Layer.provide(TestDb))

/**
 * Yields until the passes reach `n` and the worker waits on the clock again, its wake-up `inMs`
 * from now (the worker runs on its own fiber; the clock stands still; on PostgreSQL a pass answers
 * on the event loop, and the pool has sleeps of its own).
 */
const passesReach = (passes: Ref.Ref<number>, n: number, inMs: number) =>
  Effect.all([Ref.get(passes), TestClock.sleeps(), TestClock.currentTimeMillis]).pipe(
    Effect.zipLeft(Effect.yieldNow()),
    Effect.repeat({ until: ([k, sleeps, now]) => k >= n && Chunk.some(sleeps, (at) => at === now + inMs) })
  )

const put = (runId: string) =>
  Effect.flatMap(PushConfigs, (s) =>
    s.put(newConfig(runId, "c", { url: "http://127.0.0.1:9/hook" }))
  )

describe("the push worker, idle", () => {
  it.scoped("passes once at start and then only at the idle interval; a put here, another process's commit and a busy outbox wake it", () =>
    Effect.gen(function* () {
      const passes = yield* Ref.make(0)
      const base = Layer.mergeAll(counted(passes), WebhookResolverTest(new Map()), AppConfigLive(testConfig({})), LifecycleReady, ChangeFeedTest)
      // The run is never found: its config stays active, so the worker is busy once it exists.
      const context = yield* Layer.build(Layer.provideMerge(PushWorkerLive(() => Effect.succeed(Option.none())), base))
      yield* Effect.gen(function* () {
        yield* passesReach(passes, 1, A2A_PUSH_IDLE_MS)
        // Ten minutes with nothing to do: the start's pass and one per idle interval, no poll. (One
        // interval at a time: on PostgreSQL a pass answers on the event loop, not at once.)
        const idle = Math.floor(600_000 / A2A_PUSH_IDLE_MS)
        for (let i = 1; i <= idle; i++) {
          yield* TestClock.adjust(`${A2A_PUSH_IDLE_MS} millis`)
          yield* passesReach(passes, 1 + i, A2A_PUSH_IDLE_MS)
        }
        expect(yield* Ref.get(passes)).toBe(1 + idle)
        // Another process committed to the runs: one more pass, at the busy pace.
        yield* (yield* ChangeFeedBump).otherCommitted("runs", "run_x")
        yield* TestClock.adjust(`${A2A_PUSH_POLL_MS} millis`)
        yield* passesReach(passes, 2 + idle, A2A_PUSH_IDLE_MS)
        // A config put here wakes it at once (the clock stands still).
        yield* put("run_a")
        yield* passesReach(passes, 3 + idle, A2A_PUSH_POLL_MS)
        // Now busy: a pass every A2A_PUSH_POLL_MS, as before.
        for (let i = 1; i <= 4; i++) {
          yield* TestClock.adjust(`${A2A_PUSH_POLL_MS} millis`)
          yield* passesReach(passes, 3 + idle + i, A2A_PUSH_POLL_MS)
        }
      }).pipe(Effect.provide(context))
    }))
})
