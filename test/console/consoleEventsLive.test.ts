/**
 * The console page's stream follows a live run by its writes, not on a timer (issue 39). On the
 * test clock, with the version reads counted (each reads the clients table's version once):
 *
 * - with `pollInterval` an hour, a write to a live run reaches the page as a new version while
 *   the clock stands (a second on, for the write's time) an hour before any poll could bring it;
 * - with `pollInterval` a second, a live run that writes nothing costs no read per second: a minute
 *   of it reads once per keep-alive (15 s), as an idle page does;
 * - a burst of writes read within `pollInterval` of the last read waits for the rest of it (one
 *   read for the burst, not one per write); an operator's stop request made here is read at once.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Duration, Effect, Fiber, Layer, Ref, Stream, TestClock } from "effect"
import { RedactorLive } from "../../src/common/Redactor.ts"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { consoleEvents } from "../../src/edge/inbox/console/events.ts"
import { InboxWeb, InboxWebLive } from "../../src/edge/inbox/InboxWeb.ts"
import { AuthLive } from "../../src/services/auth/Auth.ts"
import { Clients, makeClients } from "../../src/services/auth/Clients.ts"
import { StopRequests, StopRequestsLive } from "../../src/services/console/stopRequests.ts"
import { Ledger, type NewRun } from "../../src/services/runs/Ledger.ts"
import { LedgerLive } from "../../src/services/runs/LedgerSql.ts"
import { ChangeFeedTest } from "../../src/storage/ChangeFeed.ts"
import { DbMemory } from "../../src/storage/Db.ts"
import { InboxSessionStores } from "../inbox/support.ts"
import { tempDir, testConfig } from "../support/daemon.ts"
import { TestDbFor } from "../support/testDb.ts"

const HEARTBEAT = Duration.seconds(15)

const newRun = (runId: string): NewRun => ({
  runId, client: "alice", agent: "hermes", profile: "default", hermesRunId: `h_${runId}`, status: "running", input: "in",
  instructions: null, sessionKey: null, reasoningEffort: null, idempotencyKey: null, fingerprint: "fp", face: "mcp",
  started: { type: "run.started", data: {} }
})

/** The console's stores and the page's web service on one change feed, the version reads counted. */
const build = (reads: Ref.Ref<number>, pollInterval: Duration.DurationInput) =>
  Effect.gen(function* () {
    const feed = yield* Layer.build(ChangeFeedTest)
    const countedClients = Layer.effect(Clients, Effect.map(makeClients, (c) => ({ ...c, version: Effect.zipRight(Ref.update(reads, (n) => n + 1), c.version) })))
    const stores = Layer.mergeAll(LedgerLive, StopRequestsLive, countedClients).pipe(Layer.provideMerge(DbMemory), Layer.provide(Layer.succeedContext(feed)))
    const web = InboxWebLive({ sessionTtl: Duration.hours(12), pollInterval, heartbeat: HEARTBEAT }).pipe(
      Layer.provideMerge(InboxSessionStores),
      Layer.provideMerge(AuthLive),
      Layer.provideMerge(Layer.succeedContext(feed)),
      Layer.provideMerge(RedactorLive),
      Layer.provideMerge(AppConfigLive(testConfig({ bridge: { admin_key: "hal0bk_live0console0admin0key00000000000" } }))),
      Layer.provideMerge(TestDbFor(tempDir()))
    )
    const ctx = Context.merge(yield* Layer.build(stores), yield* Layer.build(web))
    const { token } = yield* Context.get(ctx, InboxWeb).sessions.open
    return { ctx, token, ledger: Context.get(ctx, Ledger) }
  })

const readsReach = (reads: Ref.Ref<number>, n: number) => Ref.get(reads).pipe(Effect.zipLeft(Effect.yieldNow()), Effect.repeat({ until: (k) => k >= n }))

/** Frames collected as they come, in a ref. */
const collect = (frames: Stream.Stream<string>) =>
  Effect.gen(function* () {
    const seen = yield* Ref.make<ReadonlyArray<string>>([])
    const fiber = yield* frames.pipe(Stream.runForEach((f) => Ref.update(seen, (s) => [...s, f])), Effect.fork)
    return { seen, fiber }
  })

const versionsIn = (frames: ReadonlyArray<string>) => frames.filter((f) => f.includes("event: inbox")).length

describe("a console page's event stream while a run is live", () => {
  it.scoped("a write to the live run reaches the page at once (pollInterval an hour, the clock a second on)", () =>
    Effect.gen(function* () {
      const reads = yield* Ref.make(0)
      const { ctx, token, ledger } = yield* build(reads, Duration.hours(1))
      yield* ledger.insert(newRun("r1"))
      const { seen, fiber } = yield* collect(consoleEvents(token).pipe(Stream.provideContext(ctx)))
      yield* Ref.get(seen).pipe(Effect.zipLeft(Effect.yieldNow()), Effect.repeat({ until: (s) => versionsIn(s) >= 1 }))
      // A second on (the write's time is part of the version), an hour before any poll could come.
      yield* TestClock.adjust("1 second")
      yield* ledger.modify("r1", () => ({ change: { events: [{ type: "message.delta", data: { delta: "hi" } }] }, result: undefined }))
      const frames = yield* Ref.get(seen).pipe(Effect.zipLeft(Effect.yieldNow()), Effect.repeat({ until: (s) => versionsIn(s) >= 2, times: 2000 }))
      expect(versionsIn(frames)).toBe(2)
      yield* Fiber.interrupt(fiber)
    }))

  it.scoped("a live run that writes nothing costs no read per second; a burst within pollInterval is one read at its end", () =>
    Effect.gen(function* () {
      const reads = yield* Ref.make(0)
      const { ctx, token, ledger } = yield* build(reads, Duration.seconds(1))
      yield* ledger.insert(newRun("r1"))
      const { fiber } = yield* collect(consoleEvents(token).pipe(Stream.provideContext(ctx)))
      yield* readsReach(reads, 1)
      // A minute with the run live and quiet: one read per keep-alive (a read each second would be 60).
      for (let i = 1; i <= 60; i++) {
        yield* TestClock.adjust("1 second")
        yield* Effect.yieldNow()
      }
      yield* readsReach(reads, 5)
      expect(yield* Ref.get(reads)).toBe(5)
      // A write: read at once. Three more within the second: one read, a second after the last.
      const write = ledger.modify("r1", () => ({ change: { events: [{ type: "message.delta", data: { delta: "x" } }] }, result: undefined }))
      yield* write
      yield* readsReach(reads, 6)
      yield* write
      yield* write
      yield* write
      for (let i = 0; i < 50; i++) yield* Effect.yieldNow()
      expect(yield* Ref.get(reads)).toBe(6)
      yield* TestClock.adjust("1 second")
      yield* readsReach(reads, 7)
      yield* TestClock.adjust("5 seconds")
      for (let i = 0; i < 50; i++) yield* Effect.yieldNow()
      expect(yield* Ref.get(reads)).toBe(7)
      // The operator's stop request made here: read at once too (the feed's `stops`, told by its owner).
      yield* Context.get(ctx, StopRequests).request("r1", "page")
      yield* readsReach(reads, 8)
      yield* Fiber.interrupt(fiber)
    }))
})
