/**
 * The Inbox's change feed (`Inbox.changes`): its version moves once for every change of the rows
 * (queued, opened, decided, expired, withdrawn, deleted by retention) and not for a call that changes
 * none; a subscriber is woken by each change; and the daemon notices a decision the CLI commits from
 * its own connection to the same database file (SQLite's `PRAGMA data_version`), on the clock.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Queue, Stream, TestClock } from "effect"
import { parseArgs } from "../../src/cli/args.ts"
import { inboxCommand } from "../../src/cli/inbox.ts"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { HermesStatus } from "../../src/hermes/client/failure.ts"
import { Inbox } from "../../src/services/inbox/Inbox.ts"
import { makeOtherConnectionsCheck, watchOtherConnections } from "../../src/services/inbox/InboxChanges.ts"
import { InboxStore } from "../../src/services/inbox/InboxStore.ts"
import { InboxServices } from "../../src/daemon/teachServices.ts"
import { TestDbFor } from "../support/testDb.ts"
import { testConfig } from "../support/daemon.ts"
import { simpleHermes } from "../teach/support.ts"
import { makeStack, skillMd } from "../teach/skillFixtures.ts"
import { openApproval, pushSkill } from "./support.ts"

/** The feed's current version (its first element). */
const version = Effect.flatMap(Inbox, (inbox) => Stream.runHead(inbox.changes)).pipe(Effect.map(Option.getOrThrow))

/** How far `effect` moves the version. */
const moves = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const before = yield* version
    const value = yield* effect
    return { value, by: (yield* version) - before }
  })

const decide = (id: string, approve: boolean) => Effect.flatMap(Inbox, (inbox) => inbox.decide(id, { approve, by: "admin" }))

describe("the inbox change feed", () => {
  it.scoped("moves once per change of the rows, never for a call that changes none", () =>
    Effect.gen(function* () {
      const inbox = yield* Inbox
      const store = yield* InboxStore

      const queued = yield* moves(pushSkill("alice", "notes", skillMd("notes")))
      expect(queued.by).toBe(1)
      expect((yield* moves(pushSkill("alice", "notes", skillMd("notes")))).by).toBe(0) // same content: same row

      // An edited push withdraws the older row and queues the new one: two changes.
      const edited = yield* moves(pushSkill("alice", "notes", skillMd("notes", "Edited.")))
      expect(edited.by).toBe(2)
      expect(Option.map(yield* inbox.get(queued.value.approval_id), (r) => r.state)).toEqual(Option.some("withdrawn"))

      expect((yield* moves(decide(edited.value.approval_id, true))).by).toBe(1)
      expect((yield* moves(Effect.flip(decide(edited.value.approval_id, false)))).by).toBe(0) // already decided

      const opened = yield* moves(openApproval({ request_id: "req_1" }))
      expect(opened.by).toBe(1)
      expect((yield* moves(openApproval({ request_id: "req_1" }))).by).toBe(0) // same request: same row
      expect((yield* moves(decide(opened.value.id, false))).by).toBe(1)

      yield* openApproval({ request_id: "req_2" })
      yield* openApproval({ request_id: "req_3" })
      expect((yield* moves(inbox.expireRunApprovals("run_0123", "req_2"))).by).toBe(1)
      expect((yield* moves(inbox.expireRunApprovals("run_0123"))).by).toBe(1)
      expect((yield* moves(inbox.expireRunApprovals("run_0123"))).by).toBe(0) // nothing pending

      const swept = yield* moves(store.deleteHistory("9999-01-01T00:00:00.000Z"))
      expect(swept.value).toBe(5)
      expect(swept.by).toBe(1)
      expect((yield* moves(store.deleteHistory("9999-01-01T00:00:00.000Z"))).by).toBe(0)
    }).pipe(Effect.provide(makeStack().layer))
  )

  it.scoped("a decision that fails leaves the row pending and the version where it was", () =>
    Effect.gen(function* () {
      const row = yield* openApproval()
      const failed = yield* moves(Effect.flip(decide(row.id, true)))
      expect(failed.value._tag).toBe("AgentRefused")
      expect((yield* moves(Effect.flip(decide(row.id, false)))).by).toBe(0) // Hermes still refuses: still pending
      expect(Option.map(yield* Effect.flatMap(Inbox, (i) => i.get(row.id)), (r) => r.state)).toEqual(Option.some("pending"))
    }).pipe(Effect.provide(makeStack(() =>
      Effect.fail(new HermesStatus({ agent: "hermes", route: "POST /v1/runs/{id}/approval", status: 500, code: null, detail: null, retryAfter: Option.none() }))
    ).layer))
  )

  // On PostgreSQL a reader on another connection sees a write only once its transaction commits: a
  // version that moved at the INSERT, before the COMMIT, sent the page's stream to read the old rows,
  // find their fingerprint unchanged, and wait for a change that had already happened.
  it.scopedLive("moves only once a transaction's writes are committed: the read it wakes sees them", () =>
    Effect.gen(function* () {
      const inbox = yield* Inbox
      const store = yield* InboxStore
      const woken = yield* Queue.unbounded<number>()
      const first = yield* version
      yield* inbox.changes.pipe(
        Stream.filter((v) => v > first),
        Stream.mapEffect(() => Effect.map(store.list("pending"), (rows) => rows.length)),
        Stream.runForEach((n) => Queue.offer(woken, n)),
        Effect.forkScoped
      )
      // A transaction that writes, then is slow to commit (what a busy machine does to any of them).
      yield* store.transaction(Effect.zipRight(openApproval({ request_id: "req_slow" }), Effect.sleep("300 millis")))
      expect(yield* Queue.take(woken).pipe(Effect.timeout("10 seconds"))).toBe(1)
    }).pipe(Effect.provide(makeStack().layer))
  )

  it.scoped("wakes a subscriber with each new version, the current one first", () =>
    Effect.gen(function* () {
      const inbox = yield* Inbox
      const seen = yield* Queue.unbounded<number>()
      yield* inbox.changes.pipe(Stream.runForEach((v) => Queue.offer(seen, v)), Effect.forkScoped)
      const first = yield* Queue.take(seen)
      const row = yield* pushSkill("alice", "notes", skillMd("notes"))
      expect(yield* Queue.take(seen)).toBe(first + 1)
      yield* decide(row.approval_id, false)
      expect(yield* Queue.take(seen)).toBe(first + 2)
    }).pipe(Effect.provide(makeStack().layer))
  )
})

/** The daemon's side and the CLI's side: two connections to one database file, as two processes have. */
describe("changes another connection commits (agent-bridge inbox)", () => {
  const twoConnections = () => {
    const config = testConfig()
    const over = (layer: Layer.Layer<any, any, any>) =>
      layer.pipe(
        Layer.provideMerge(TestDbFor(config.dataDir)),
        Layer.provideMerge(simpleHermes),
        Layer.provideMerge(AppConfigLive(config))
      ) as Layer.Layer<any, any, never>
    const cli = (line: string) =>
      inboxCommand(parseArgs(["inbox", ...line.split(" ")])).pipe(Effect.provide(over(InboxServices)), Effect.scoped)
    return { over, cli }
  }

  it.scoped("the data_version check fires only for another connection's commit", () => {
    const { over, cli } = twoConnections()
    return Effect.gen(function* () {
      const check = yield* makeOtherConnectionsCheck
      expect(yield* check).toBe(false) // the first look records where it starts
      const row = yield* openApproval()
      expect(yield* check).toBe(false) // this connection's own commit
      const before = yield* version
      expect(yield* cli(`deny ${row.id}`)).toBe(`${row.id}: denied (deny).`)
      expect(yield* check).toBe(true)
      expect(yield* version).toBe(before + 1)
      expect(yield* check).toBe(false)
      expect(Option.map(yield* Effect.flatMap(Inbox, (i) => i.get(row.id)), (r) => r.state)).toEqual(Option.some("denied"))
    }).pipe(Effect.provide(over(InboxServices)))
  })

  it.scoped("the daemon's watcher wakes the feed after the CLI decides a row", () => {
    const { over, cli } = twoConnections()
    return Effect.gen(function* () {
      const inbox = yield* Inbox
      const seen = yield* Queue.unbounded<number>()
      yield* inbox.changes.pipe(Stream.runForEach((v) => Queue.offer(seen, v)), Effect.forkScoped)
      const first = yield* Queue.take(seen)
      const row = yield* openApproval()
      expect(yield* Queue.take(seen)).toBe(first + 1)
      yield* TestClock.adjust("1 second") // the watcher has looked at least once before the CLI writes

      yield* cli(`deny ${row.id}`)
      yield* TestClock.adjust("1 second")
      expect(yield* Queue.take(seen)).toBe(first + 2)
      expect(Option.map(yield* inbox.get(row.id), (r) => r.state)).toEqual(Option.some("denied"))
    }).pipe(Effect.provide(over(watchOtherConnections().pipe(Layer.provideMerge(InboxServices)))))
  })
})
