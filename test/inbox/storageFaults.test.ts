/**
 * The inbox on a full disk: a write inside one of the store's transactions that fails with
 * SQLITE_FULL is a typed `StoreUnavailable` failure (`bridge.store_unavailable`, 503, with a sentence
 * saying the disk is full: the inbox page answers it on the row's page, the run followers retry and
 * log it), never a defect or a `bridge.internal`. After SQLITE_FULL, SQLite has rolled the whole transaction back by itself, so a plain
 * `withTransaction` then dies on its own ROLLBACK ("no transaction is active").
 *
 * The disk is "full" for real: `max_page_count` is pinned to the database's current size, and a
 * skill card of 15 KiB needs new pages.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { Inbox } from "../../src/services/inbox/Inbox.ts"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeStack, readFolder, skillMd } from "../teach/skillFixtures.ts"
import { pushDelete, pushSkill } from "./support.ts"

const pageCount = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ page_count: number }>`PRAGMA page_count`).pipe(
  Effect.map((rows) => rows[0]!.page_count),
  Effect.orDie
)

const setMaxPages = (pages: number) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`PRAGMA max_page_count = ${pages}`)).pipe(Effect.orDie)

/** The database cannot grow past its current size until `spaceBack`. */
const fillDisk = Effect.flatMap(pageCount, setMaxPages)
const spaceBack = setMaxPages(1073741823)

/** The failure's tag ("StoreUnavailable", "Internal"); a defect or a success reads differently. */
const outcome = <A, E>(exit: Exit.Exit<A, E>): string =>
  Exit.match(exit, {
    onSuccess: () => "success",
    onFailure: (cause) => (cause._tag === "Fail" ? String((cause.error as { _tag?: unknown })._tag) : `cause ${cause._tag}`)
  })

const failureMessage = <A, E>(exit: Exit.Exit<A, E>): string =>
  Exit.match(exit, { onSuccess: () => "", onFailure: (cause) => (cause._tag === "Fail" ? String((cause.error as { message?: unknown }).message) : "") })

/** Every write fails with SQLITE_READONLY (what a database file the bridge may not write answers). */
const readOnly = (on: boolean) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`PRAGMA query_only = ${on ? "ON" : "OFF"}`)).pipe(Effect.orDie)

const decide = (id: string) => Effect.flatMap(Inbox, (inbox) => inbox.decide(id, { approve: true, by: "admin" }))

const bigSkill = (name: string, fill: string) => skillMd(name, "Does one useful thing.", `# Steps\n\n${fill.repeat(15_000)}\n`)

const pending = Effect.flatMap(Inbox, (inbox) => inbox.list({ state: "pending" }))

describe("inbox storage faults", () => {
  it.scoped("a skill push on a full disk fails as StoreUnavailable (typed) and queues nothing; with space back it queues", () =>
    Effect.gen(function* () {
      yield* fillDisk
      const exit = yield* pushSkill("alice", "notes", bigSkill("notes", "a")).pipe(Effect.exit)
      expect(outcome(exit)).toBe("StoreUnavailable")
      expect(failureMessage(exit)).toContain("is full (SQLITE_FULL); free space there, then retry")
      expect(yield* pending).toEqual([])

      yield* spaceBack
      const queued = yield* pushSkill("alice", "notes", bigSkill("notes", "a"))
      expect((yield* pending).map((r) => r.id)).toEqual([queued.approval_id])
    }).pipe(Effect.provide(makeStack().layer)))

  it.scoped("an edited push on a full disk fails as StoreUnavailable and leaves the older row pending (its withdrawal is rolled back)", () =>
    Effect.gen(function* () {
      const first = yield* pushSkill("alice", "notes", skillMd("notes"))
      yield* fillDisk
      const exit = yield* pushSkill("alice", "notes", bigSkill("notes", "b")).pipe(Effect.exit)
      expect(outcome(exit)).toBe("StoreUnavailable")
      const rows = yield* pending
      expect(rows.map((r) => [r.id, r.state])).toEqual([[first.approval_id, "pending"]])
    }).pipe(Effect.provide(makeStack().layer)))

  it.scoped("an approved put whose row cannot be closed is taken back: no skill, nothing parked, the row still pending", () => {
    const stack = makeStack()
    return Effect.gen(function* () {
      const queued = yield* pushSkill("alice", "notes", skillMd("notes"))
      yield* readOnly(true)
      const exit = yield* decide(queued.approval_id).pipe(Effect.exit)
      expect(outcome(exit)).toBe("StoreUnavailable")
      expect(failureMessage(exit)).toContain("SQLITE_READONLY")
      yield* readOnly(false)
      expect(fs.existsSync(path.join(stack.dirs.dropinDir, "notes"))).toBe(false)
      expect(fs.existsSync(stack.dirs.parkedDir) ? fs.readdirSync(stack.dirs.parkedDir) : []).toEqual([])
      expect((yield* pending).map((r) => r.id)).toEqual([queued.approval_id])
      // With storage back the same approval goes through whole.
      yield* decide(queued.approval_id)
      expect(readFolder(path.join(stack.dirs.dropinDir, "notes"))["SKILL.md"]).toBe(skillMd("notes"))
    }).pipe(Effect.provide(stack.layer))
  })

  it.scoped("an approved replacement or delete whose row cannot be closed puts the previous version back", () => {
    const stack = makeStack()
    return Effect.gen(function* () {
      const dir = path.join(stack.dirs.dropinDir, "notes")
      yield* decide((yield* pushSkill("alice", "notes", skillMd("notes", "First."))).approval_id)
      const before = readFolder(dir)
      for (const push of [pushSkill("alice", "notes", skillMd("notes", "Second.")), pushDelete("alice", "notes")]) {
        const queued = yield* push
        yield* readOnly(true)
        expect(outcome(yield* decide(queued.approval_id).pipe(Effect.exit))).toBe("StoreUnavailable")
        yield* readOnly(false)
        expect(readFolder(dir)).toEqual(before)
        // The first install parked nothing; the taken-back change leaves no parked copy behind.
        expect(fs.existsSync(path.join(stack.dirs.parkedDir, "notes")) ? fs.readdirSync(path.join(stack.dirs.parkedDir, "notes")) : []).toEqual([])
        expect((yield* pending).map((r) => r.id)).toEqual([queued.approval_id])
        yield* Effect.flatMap(Inbox, (inbox) => inbox.decide(queued.approval_id, { approve: false, by: "admin" }))
      }
    }).pipe(Effect.provide(stack.layer))
  })
})
