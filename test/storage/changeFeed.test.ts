/**
 * The process's change feed (`src/storage/ChangeFeed.ts`): on SQLite a commit by a second connection
 * to the same file (another process) wakes every topic's subscribers, heard through the watch on the
 * database's files (the test clock never moves: no timer brings it), and this connection's own
 * writes do not; `notify` wakes this process's subscribers of its topic only. The looks: one at
 * start, one per file change (a burst within the spacing is one more), a safety look every 30 s and
 * nothing else while nothing changes (issue 41: idle is idle); a failed watch falls back to the
 * 500 ms poll; the looking stops when its scope closes, carries on after a failed look, and a
 * subscriber that reads nothing holds at most the hub's capacity (the newest kept). The double is
 * bumped by hand.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Chunk, Duration, Effect, Exit, Layer, Option, Queue, Ref, Scope, Stream, TestClock } from "effect"
import * as path from "node:path"
import { collect } from "../support/feedCollect.ts"
import { type Change, ChangeFeed, ChangeFeedBump, ChangeFeedTest, HUB_CAPACITY } from "../../src/storage/ChangeFeed.ts"
import { ChangeFeedLive } from "../../src/storage/ChangeFeedLive.ts"
import { CHANGE_FEED_EVERY, CHANGE_FEED_SAFETY, type FileWatch, makeWatchedFeed } from "../../src/storage/sqlite/ChangeFeedSqlite.ts"
import { DB_FILE, DbLive } from "../../src/storage/Db.ts"
import { tempDir } from "../support/daemon.ts"

/** A write from another connection to the same file, as another process makes it. */
const fromAnotherProcess = (dataDir: string) =>
  Effect.sync(() => {
    const db = new Database(path.join(dataDir, DB_FILE))
    try {
      db.prepare("INSERT INTO run_stop_requests (run_id, requested_by, via, requested_at) VALUES (?, 'operator', 'cli', 1)").run(`run_${Math.random()}`)
    } finally {
      db.close()
    }
  })


const onFile = () => {
  const dataDir = tempDir()
  return { dataDir, layer: ChangeFeedLive.pipe(Layer.provideMerge(DbLive(dataDir))) }
}

describe("the change feed on SQLite", () => {
  it.scoped("a commit by a second connection wakes every topic's subscribers through the file watch, with no clock moving", () => {
    const { dataDir, layer } = onFile()
    return Effect.gen(function* () {
      const keys = yield* collect("keys")
      const runs = yield* collect("runs")
      yield* fromAnotherProcess(dataDir)
      // The test clock stands still: neither a poll nor the safety look can bring it.
      expect(yield* Queue.take(keys)).toEqual({ topic: "*", origin: "other" })
      expect(yield* Queue.take(runs)).toEqual({ topic: "*", origin: "other" })
    }).pipe(Effect.provide(layer))
  })

  it.scoped("this connection's own commits are not another process's; check looks at once", () => {
    const { dataDir, layer } = onFile()
    return Effect.gen(function* () {
      const feed = yield* ChangeFeed
      const sql = yield* SqlClient.SqlClient
      const stops = yield* collect("stops")
      yield* sql`INSERT INTO run_stop_requests (run_id, requested_by, via, requested_at) VALUES ('own', 'operator', 'page', 1)`
      expect(yield* feed.check).toBe(false)
      yield* TestClock.adjust(CHANGE_FEED_SAFETY)
      expect(yield* Queue.size(stops)).toBe(0)
      // Another connection's commit: `check` finds it before the tick, and tells subscribers once.
      yield* fromAnotherProcess(dataDir)
      expect(yield* feed.check).toBe(true)
      expect(yield* Queue.take(stops)).toEqual({ topic: "*", origin: "other" })
      yield* TestClock.adjust(CHANGE_FEED_SAFETY)
      expect(yield* feed.check).toBe(false)
      expect(yield* Queue.size(stops)).toBe(0)
    }).pipe(Effect.provide(layer))
  })

  it.scoped("notify wakes this process's subscribers of its topic only, at once", () =>
    Effect.gen(function* () {
      const feed = yield* ChangeFeed
      const keys = yield* collect("keys")
      const inbox = yield* collect("inbox")
      yield* feed.notify("keys")
      yield* feed.notify("inbox", "inb_1")
      expect(yield* Queue.take(keys)).toEqual({ topic: "keys", origin: "local" })
      expect(yield* Queue.take(inbox)).toEqual({ topic: "inbox", origin: "local", key: "inb_1" })
      expect(yield* Queue.size(keys)).toBe(0)
    }).pipe(Effect.provide(onFile().layer)))
})

describe("the looks", () => {
  /** A reading that counts its looks and answers `values` in turn (then the last one). */
  const reading = (values: ReadonlyArray<number | "fail">) =>
    Effect.gen(function* () {
      const looks = yield* Ref.make(0)
      const read = Effect.flatMap(Ref.getAndUpdate(looks, (n) => n + 1), (i) => {
        const v = values[Math.min(i, values.length - 1)]!
        return v === "fail" ? Effect.fail("disk I/O error" as const) : Effect.succeed(v)
      })
      return { looks, read }
    })

  /** A watch the test fires by hand (`fire`), or one that cannot start. */
  const handWatch = Effect.gen(function* () {
    const listeners = yield* Ref.make<ReadonlyArray<() => void>>([])
    const watch: FileWatch = (changed) => Ref.update(listeners, (ls) => [...ls, changed])
    return { watch: Option.some(watch), fire: Effect.flatMap(Ref.get(listeners), (ls) => Effect.sync(() => ls.forEach((l) => l()))) }
  })

  it.effect("looks once at start and then only when the files change or the safety tick comes; stops when its scope closes", () =>
    Effect.gen(function* () {
      const { looks, read } = yield* reading([1])
      const { watch, fire } = yield* handWatch
      const scope = yield* Scope.make()
      yield* Scope.extend(makeWatchedFeed(read, { watch }), scope)
      expect(yield* Ref.get(looks)).toBe(1)
      // Idle: no poll; the wake-ups are counted by the looks.
      yield* TestClock.adjust(Duration.subtract(CHANGE_FEED_SAFETY, "1 second"))
      expect(yield* Ref.get(looks)).toBe(1)
      yield* TestClock.adjust("1 second")
      expect(yield* Ref.get(looks)).toBe(2)
      // Each safety look comes 30 s after the end of the previous look's spacing (500 ms).
      yield* TestClock.adjust(Duration.times(CHANGE_FEED_SAFETY, 3))
      expect(yield* Ref.get(looks)).toBe(4)
      // A change looks at once; a burst during the spacing after it is one more look.
      yield* fire
      yield* Ref.get(looks).pipe(Effect.zipLeft(Effect.yieldNow()), Effect.repeat({ until: (n) => n === 5 }))
      for (let i = 0; i < 20; i++) yield* fire
      yield* TestClock.adjust("500 millis")
      yield* Ref.get(looks).pipe(Effect.zipLeft(Effect.yieldNow()), Effect.repeat({ until: (n) => n === 6 }))
      yield* TestClock.adjust("1 second")
      expect(yield* Ref.get(looks)).toBe(6)
      yield* Scope.close(scope, Exit.void)
      yield* fire
      yield* TestClock.adjust("2 minutes")
      expect(yield* Ref.get(looks)).toBe(6)
    }))

  it.effect("an in-memory database (nothing to watch) is never looked at but by check", () =>
    Effect.gen(function* () {
      const { looks, read } = yield* reading([1])
      const feed = yield* makeWatchedFeed(read, { watch: Option.none() })
      yield* TestClock.adjust("10 minutes")
      expect(yield* Ref.get(looks)).toBe(1)
      yield* feed.check
      expect(yield* Ref.get(looks)).toBe(2)
    }).pipe(Effect.scoped))

  it.effect("files that cannot be watched: a warning, then a look every 500 ms as the poll had", () =>
    Effect.gen(function* () {
      const { looks, read } = yield* reading([1])
      yield* makeWatchedFeed(read, { watch: Option.some(() => Effect.fail("ENOSPC")) })
      yield* TestClock.adjust(Duration.times(CHANGE_FEED_EVERY, 4))
      expect(yield* Ref.get(looks)).toBe(5)
    }).pipe(Effect.scoped))

  it.scoped("a failed look is logged and the next tick still notices a commit", () =>
    Effect.gen(function* () {
      const { read } = yield* reading([1, "fail", 2])
      const feed = yield* makeWatchedFeed(read, { watch: Option.some(() => Effect.fail("no watch")) })
      const seen = yield* Queue.unbounded<Change>()
      yield* Effect.flatMap(feed.subscribe("inbox"), (s) => Effect.forkScoped(Stream.runForEach(s, (c) => Queue.offer(seen, c))))
      yield* TestClock.adjust("500 millis") // the failed look
      expect(yield* Queue.size(seen)).toBe(0)
      yield* TestClock.adjust("500 millis") // 1 → 2: another process committed
      expect(yield* Queue.take(seen)).toEqual({ topic: "*", origin: "other" })
    }))

  it.scoped("when the first look fails, the first that succeeds reports a change (it had no starting point)", () =>
    Effect.gen(function* () {
      const { read } = yield* reading(["fail", 5, 5])
      const feed = yield* makeWatchedFeed(read, { watch: Option.some(() => Effect.fail("no watch")) })
      const seen = yield* Queue.unbounded<Change>()
      yield* Effect.flatMap(feed.subscribe("keys"), (s) => Effect.forkScoped(Stream.runForEach(s, (c) => Queue.offer(seen, c))))
      yield* TestClock.adjust("500 millis") // the first look that succeeds
      expect(yield* Queue.take(seen)).toEqual({ topic: "*", origin: "other" })
      yield* TestClock.adjust("500 millis") // 5 → 5: nothing more
      expect(yield* Queue.size(seen)).toBe(0)
    }))

  it.scoped("a subscriber that reads nothing holds at most the hub's capacity, the newest kept", () =>
    Effect.gen(function* () {
      const { read } = yield* reading([1])
      const feed = yield* makeWatchedFeed(read, { watch: Option.some(() => Effect.fail("no watch")) })
      const idle = yield* feed.subscribe("runs")
      for (let i = 0; i < HUB_CAPACITY * 4; i++) yield* feed.notify("runs", String(i))
      const kept = Chunk.toReadonlyArray(yield* idle.pipe(Stream.take(HUB_CAPACITY), Stream.runCollect)).map((c) => c.key)
      expect(kept[0]).toBe(String(HUB_CAPACITY * 3))
      expect(kept.at(-1)).toBe(String(HUB_CAPACITY * 4 - 1))
      // Nothing else was held: the next element is the next change.
      yield* feed.notify("runs", "after")
      expect(Chunk.toReadonlyArray(yield* idle.pipe(Stream.take(1), Stream.runCollect)).map((c) => c.key)).toEqual(["after"])
    }))

  it.scoped("a burst on one topic never pushes another topic's unread change out", () =>
    Effect.gen(function* () {
      const { read } = yield* reading([1])
      const feed = yield* makeWatchedFeed(read, { watch: Option.some(() => Effect.fail("no watch")) })
      const keys = yield* feed.subscribe("keys")
      yield* feed.notify("keys", "revoked")
      for (let i = 0; i < HUB_CAPACITY * 2; i++) yield* feed.notify("runs", String(i))
      expect(Chunk.toReadonlyArray(yield* keys.pipe(Stream.take(1), Stream.runCollect)).map((c) => c.key)).toEqual(["revoked"])
    }))
})

describe("the double", () => {
  it.scoped("otherCommitted wakes the topic's subscribers (every topic without one); check reports it once", () =>
    Effect.gen(function* () {
      const feed = yield* ChangeFeed
      const bump = yield* ChangeFeedBump
      const runs = yield* collect("runs")
      const keys = yield* collect("keys")
      expect(yield* feed.check).toBe(false)
      yield* bump.otherCommitted("runs", "run_1")
      expect(yield* Queue.take(runs)).toEqual({ topic: "runs", origin: "other", key: "run_1" })
      yield* bump.otherCommitted()
      expect(yield* Queue.take(keys)).toEqual({ topic: "*", origin: "other" })
      expect(yield* Queue.take(runs)).toEqual({ topic: "*", origin: "other" })
      expect(yield* feed.check).toBe(true)
      expect(yield* feed.check).toBe(false)
      expect(Option.isNone(yield* Queue.poll(keys))).toBe(true)
    }).pipe(Effect.provide(ChangeFeedTest)))
})
