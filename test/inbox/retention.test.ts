/**
 * Inbox retention on the TestClock: rows closed (approved, denied, expired, withdrawn) more than
 * `inbox.history_retention_days` ago are deleted by the daemon's sweeper (at start, then hourly); a
 * younger closed row stays, a pending row stays at any age, and the parked skill versions approvals
 * left on disk are not touched. Also the key's default and the values it refuses.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Clock, Effect, Either, Layer, Option, TestClock } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { loadConfig } from "../../src/config/load.ts"
import { Inbox } from "../../src/services/inbox/Inbox.ts"
import { InboxStore } from "../../src/services/inbox/InboxStore.ts"
import { InboxRetentionLive, sweepInboxHistory } from "../../src/services/inbox/retention.ts"
import { SkillStore } from "../../src/services/skill-store/SkillStore.ts"
import { tempDir, testConfig } from "../support/daemon.ts"
import { makeStack, readFolder, skillMd, writeSkill } from "../teach/skillFixtures.ts"
import { eventuallyUnderTestClock } from "../runs/support/harness.ts"
import { openApproval, pushDelete, pushSkill } from "./support.ts"

const HOUR = 60 * 60 * 1000
const DAY = 24 * HOUR

const stateOf = (id: string) =>
  Effect.flatMap(Inbox, (inbox) => inbox.get(id)).pipe(Effect.map(Option.match({ onNone: () => "deleted", onSome: (r) => r.state })))

const decide = (id: string, approve: boolean) => Effect.flatMap(Inbox, (inbox) => inbox.decide(id, { approve, by: "admin" }))

/**
 * Until the sweeper is asleep again, its next round an hour from now: the sweep it began (a real
 * round trip on PostgreSQL, at once on the in-memory SQLite) has ended. Real time, 10 s at most.
 */
const sweeperAsleep = Effect.gen(function* () {
  const due = (yield* Clock.currentTimeMillis) + HOUR
  yield* eventuallyUnderTestClock(TestClock.sleeps(), (sleeps) => Chunk.some(sleeps, (at) => at === due), "the retention sweeper asleep again")
})

/**
 * Moves the TestClock by whole hours, one at a time, each time once the sweeper sleeps: every
 * hourly round then sweeps at its own hour. Moved in one step, the clock passed rounds whose sweep
 * was still on the database; the sweeper then slept an hour from the clock's end, and the rounds
 * between never ran (on PostgreSQL, a row three days old still read 'denied').
 */
const advance = (hours: number) =>
  Effect.gen(function* () {
    for (let h = 0; h < hours; h++) {
      yield* sweeperAsleep
      yield* TestClock.adjust(HOUR)
    }
    yield* sweeperAsleep
  })

/** The inbox stack with the sweeper, `days` of history kept; an installed drop-in skill `kept` to park. */
const retentionStack = (days: number) => {
  const stack = makeStack()
  writeSkill(stack.dirs.dropinDir, "kept", skillMd("kept", "The installed version."))
  const config = AppConfigLive(testConfig({ inbox: { history_retention_days: days } }))
  return { stack, layer: InboxRetentionLive.pipe(Layer.provideMerge(stack.layer), Layer.provideMerge(config)) }
}

describe("inbox retention", () => {
  // The TestClock waits a little real time at each wake-up, so the scheduled test keeps to a period
  // of one day (a few dozen hourly sweeps); the 30-day default is exercised by one-off sweeps below.
  it.scoped("the sweeper deletes closed rows past the period on its hourly round; younger and pending rows stay; parked versions stay on disk", () => {
    const { stack, layer } = retentionStack(1)
    return Effect.gen(function* () {
      // Hour 0: one row of each closed kind, a pending one, and an approval that parks a version.
      const denied = (yield* pushSkill("alice", "a", skillMd("a"))).approval_id
      yield* decide(denied, false)
      const withdrawn = (yield* pushSkill("alice", "b", skillMd("b"))).approval_id
      yield* pushSkill("alice", "b", skillMd("b", "Edited."))
      const expired = (yield* openApproval({ request_id: "req_old" })).id
      yield* Effect.flatMap(Inbox, (inbox) => inbox.expireRunApprovals("run_0123"))
      const approved = (yield* pushSkill("alice", "kept", skillMd("kept", "A new version."))).approval_id
      yield* decide(approved, true)
      const pending = (yield* pushSkill("bob", "p", skillMd("p"))).approval_id

      const store = yield* SkillStore
      const parked = yield* store.parked("kept")
      expect(parked.length).toBe(1)
      const parkedDir = path.join(stack.dirs.parkedDir, "kept", parked[0]!.version)
      const parkedFiles = readFolder(parkedDir)
      expect(parkedFiles["SKILL.md"]).toBe(skillMd("kept", "The installed version."))

      // Hour 12: a decision that is half a day old when the first ones pass a day.
      yield* advance(12)
      const younger = (yield* pushDelete("alice", "kept")).approval_id
      yield* decide(younger, false)

      // Hour 23: nothing is old enough yet.
      yield* advance(11)
      for (const id of [denied, withdrawn, expired, approved, younger]) expect(yield* stateOf(id)).not.toBe("deleted")

      // Past hour 24 (the hourly sweep came round): the hour-0 closed rows are gone.
      yield* advance(2)
      for (const id of [denied, withdrawn, expired, approved]) expect(yield* stateOf(id)).toBe("deleted")
      expect(yield* stateOf(younger)).toBe("denied")
      expect(yield* stateOf(pending)).toBe("pending")

      // Three days on: the younger row went too; the pending one never goes.
      yield* advance(3 * 24)
      expect(yield* stateOf(younger)).toBe("deleted")
      expect(yield* stateOf(pending)).toBe("pending")

      // The skill store's parked version is exactly where and what it was, and so is the installed skill.
      expect(yield* store.parked("kept")).toEqual(parked)
      expect(readFolder(parkedDir)).toEqual(parkedFiles)
      expect(fs.readFileSync(path.join(stack.dirs.dropinDir, "kept", "SKILL.md"), "utf8")).toBe(skillMd("kept", "A new version."))
    }).pipe(Effect.provide(layer))
  })

  it.scoped("with 30 days: a row decided 31 days ago goes, one decided 29 days ago stays, a pending row of 1000 days stays", () =>
    Effect.gen(function* () {
      const store = yield* InboxStore
      const pending = (yield* openApproval({ request_id: "kept-pending" })).id
      const old = (yield* openApproval({ request_id: "old" })).id
      yield* decide(old, false)
      yield* TestClock.adjust(2 * DAY)
      const young = (yield* openApproval({ request_id: "young" })).id
      yield* decide(young, true)
      yield* TestClock.adjust(29 * DAY)
      expect(yield* sweepInboxHistory(store, 30)).toBe(1)
      expect(yield* stateOf(old)).toBe("deleted")
      expect(yield* stateOf(young)).toBe("approved")
      yield* TestClock.adjust(1000 * DAY)
      expect(yield* sweepInboxHistory(store, 30)).toBe(1)
      expect(yield* stateOf(young)).toBe("deleted")
      expect(yield* stateOf(pending)).toBe("pending")
    }).pipe(Effect.provide(makeStack().layer))
  )

  it.scoped("one sweep goes by when a row was closed, not when it was created", () =>
    Effect.gen(function* () {
      const store = yield* InboxStore
      const row = (yield* openApproval({ request_id: "r1" })).id
      yield* TestClock.adjust(DAY)
      yield* decide(row, false)
      yield* TestClock.adjust(DAY)
      // Created two days ago, closed one day ago: a day-and-a-half period keeps it.
      expect(yield* sweepInboxHistory(store, 1.5)).toBe(0)
      expect(yield* stateOf(row)).toBe("denied")
      expect(yield* sweepInboxHistory(store, 0.5)).toBe(1)
      expect(yield* stateOf(row)).toBe("deleted")
    }).pipe(Effect.provide(makeStack().layer))
  )
})

describe("inbox.history_retention_days", () => {
  const load = (yaml: string) => {
    const dir = tempDir("agent-bridge-config-")
    fs.writeFileSync(path.join(dir, "agent-bridge.yaml"), yaml)
    return loadConfig({ configPath: path.join(dir, "agent-bridge.yaml"), env: {} })
  }

  it("is 30 by default and takes any finite number of days above zero", () => {
    expect(Either.getOrThrow(load("")).inbox.history_retention_days).toBe(30)
    expect(Either.getOrThrow(load("inbox: {}\n")).inbox.history_retention_days).toBe(30)
    expect(Either.getOrThrow(load("inbox: {history_retention_days: 0.5}\n")).inbox.history_retention_days).toBe(0.5)
    expect(Either.getOrThrow(load("inbox: {history_retention_days: 365}\n")).inbox.history_retention_days).toBe(365)
  })

  it("refuses zero, negative, infinite and non-numbers, and unknown inbox keys, naming the key", () => {
    for (const value of ["0", "-1", ".inf", "thirty"]) {
      const res = load(`inbox: {history_retention_days: ${value}}\n`)
      expect(Either.isLeft(res) && res.left.message.includes("inbox.history_retention_days")).toBe(true)
    }
    const unknown = load("inbox: {retention: 3}\n")
    expect(Either.isLeft(unknown) && unknown.left.message.includes("inbox.retention")).toBe(true)
  })
})
