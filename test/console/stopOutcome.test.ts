/**
 * `agent-bridge runs stop` waits (at most STOP_REPORT_WAIT) for a daemon to carry the request out,
 * to report its outcome (`awaitOutcome`). It reads the request once, then again only when the
 * change feed reports another process's commit to the stop requests (the daemon's), never on a
 * poll: on the test clock, with the reads counted, four quiet seconds read nothing more; the
 * daemon's commit is reported with the clock standing still; with no daemon the wait ends empty at
 * its bound. On both dialects (`TestDb`).
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Fiber, Option, Ref, TestClock } from "effect"
import { awaitOutcome, makeStopRequests } from "../../src/services/console/stopRequests.ts"
import { ChangeFeedBump, ChangeFeedTest } from "../../src/storage/ChangeFeed.ts"
import { sleep, until } from "../support/poll.ts"
import { TestDb } from "../support/testDb.ts"

describe("the CLI's wait for a stop's outcome", () => {
  it.scoped("reads the request at once and again only on another process's commit; ends empty at its bound", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const bump = yield* ChangeFeedBump
      const reads = yield* Ref.make(0)
      const cli = yield* makeStopRequests
      const counted = { ...cli, get: (runId: string) => Effect.zipRight(Ref.update(reads, (n) => n + 1), cli.get(runId)) }
      // The daemon: another process, whose commits this one hears only through its feed.
      const daemon = yield* makeStopRequests.pipe(Effect.mapInputContext((_: Context.Context<never>) => Context.make(SqlClient.SqlClient, sql)))
      const readsNow = () => Effect.runSync(Ref.get(reads))

      yield* cli.request("run_a", "cli")
      const waiting = yield* Effect.fork(awaitOutcome(counted, "run_a", "5 seconds"))
      yield* Effect.promise(() => until(readsNow, (n) => n >= 1, { what: "the first read" }))
      // Four seconds with nothing committed: no read (a poll every 200 ms would have read 20 times).
      for (let i = 0; i < 20; i++) yield* TestClock.adjust("200 millis")
      yield* Effect.promise(() => sleep(300))
      expect(readsNow()).toBe(1)
      // The daemon carries it out; the feed reports its commit: the outcome, the clock standing still.
      yield* daemon.finish("run_a", "stopping")
      yield* bump.otherCommitted("stops")
      expect(yield* Fiber.join(waiting)).toEqual(Option.some("stopping"))
      expect(readsNow()).toBe(2)

      // No daemon: the wait ends empty at its bound.
      yield* cli.request("run_b", "cli")
      const unanswered = yield* Effect.fork(awaitOutcome(counted, "run_b", "5 seconds"))
      yield* Effect.promise(() => until(readsNow, (n) => n >= 3, { what: "the first read of run_b" }))
      yield* TestClock.adjust("5 seconds")
      expect(yield* Fiber.join(unanswered)).toEqual(Option.none())
    }).pipe(Effect.provide(ChangeFeedTest), Effect.provide(TestDb)))
})
