/**
 * An open console page does not poll while nothing is live (issue 41: its version was read once a
 * second per open page). On the test clock, with the version reads counted (each reads the clients
 * table's version once): one read at the start, then one per keep-alive (15 s) while no run is
 * live; a change of a watched topic of the change feed (`runs`, `stops`, `keys`) reads at once.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Duration, Effect, Fiber, Layer, Ref, Stream, TestClock } from "effect"
import { RedactorLive } from "../../src/common/Redactor.ts"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { consoleEvents } from "../../src/edge/inbox/console/events.ts"
import { InboxWeb, InboxWebLive } from "../../src/edge/inbox/InboxWeb.ts"
import { AuthLive } from "../../src/services/auth/Auth.ts"
import { Clients, makeClients } from "../../src/services/auth/Clients.ts"
import { StopRequestsLive } from "../../src/services/console/stopRequests.ts"
import { LedgerLive } from "../../src/services/runs/LedgerSql.ts"
import { ChangeFeed, ChangeFeedTest } from "../../src/storage/ChangeFeed.ts"
import { DbMemory } from "../../src/storage/Db.ts"
import { InboxSessionStores } from "../inbox/support.ts"
import { tempDir, testConfig } from "../support/daemon.ts"
import { TestDbFor } from "../support/testDb.ts"

const HEARTBEAT = Duration.seconds(15)

describe("an idle console page's event stream", () => {
  it.scoped("reads the version at the start, then at each keep-alive and on a watched change, never each second while nothing is live", () =>
    Effect.gen(function* () {
      const reads = yield* Ref.make(0)
      const countedClients = Layer.effect(Clients, Effect.map(makeClients, (c) => ({ ...c, version: Effect.zipRight(Ref.update(reads, (n) => n + 1), c.version) })))
      const stores = Layer.mergeAll(LedgerLive, StopRequestsLive, countedClients).pipe(Layer.provideMerge(DbMemory))
      const web = InboxWebLive({ sessionTtl: Duration.hours(12), pollInterval: Duration.seconds(1), heartbeat: HEARTBEAT }).pipe(
        Layer.provideMerge(InboxSessionStores),
        Layer.provideMerge(AuthLive),
        Layer.provideMerge(ChangeFeedTest),
        Layer.provideMerge(RedactorLive),
        Layer.provideMerge(AppConfigLive(testConfig({ bridge: { admin_key: "hal0bk_idle0console0admin0key00000000000" } }))),
        Layer.provideMerge(TestDbFor(tempDir()))
      )
      // Each over a database of its own, as they are built here.
      const webCtx = yield* Layer.build(web)
      const storesCtx = yield* Layer.build(stores)
      const ctx = Context.merge(storesCtx, webCtx)
      const feed = Context.get(ctx, ChangeFeed)
      const { token } = yield* Context.get(ctx, InboxWeb).sessions.open
      const frames = yield* consoleEvents(token).pipe(Stream.provideContext(ctx), Stream.runCollect, Effect.fork)
      const readsReach = (n: number) => Ref.get(reads).pipe(Effect.zipLeft(Effect.yieldNow()), Effect.repeat({ until: (k) => k >= n }))
      yield* readsReach(1)
      // A minute with nothing live: one read per keep-alive (a read each second would be 60).
      for (let i = 1; i <= 4; i++) {
        yield* TestClock.adjust(HEARTBEAT)
        yield* readsReach(1 + i)
      }
      yield* TestClock.adjust("1 second")
      expect(yield* Ref.get(reads)).toBe(5)
      // A watched change reads at once.
      yield* feed.notify("runs")
      yield* readsReach(6)
      yield* TestClock.adjust("1 second")
      expect(yield* Ref.get(reads)).toBe(6)
      yield* Fiber.interrupt(frames)
    }))
})
