/**
 * The inbox on a full disk: a write inside one of the store's transactions that fails with
 * SQLITE_FULL is a typed `Internal` failure (`bridge.internal`, what `Inbox` and `SkillProposals`
 * promise: the inbox page answers it on the row's page, the run followers retry and log it), never a
 * defect. After SQLITE_FULL, SQLite has rolled the whole transaction back by itself, so a plain
 * `withTransaction` then dies on its own ROLLBACK ("no transaction is active").
 *
 * The disk is "full" for real: `max_page_count` is pinned to the database's current size, and a
 * skill card of 15 KiB needs new pages.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { Inbox } from "../../src/services/Inbox.ts"
import { makeStack, skillMd } from "../teach/skillFixtures.ts"
import { pushSkill } from "./support.ts"

const pageCount = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ page_count: number }>`PRAGMA page_count`).pipe(
  Effect.map((rows) => rows[0]!.page_count),
  Effect.orDie
)

const setMaxPages = (pages: number) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`PRAGMA max_page_count = ${pages}`)).pipe(Effect.orDie)

/** The database cannot grow past its current size until `spaceBack`. */
const fillDisk = Effect.flatMap(pageCount, setMaxPages)
const spaceBack = setMaxPages(1073741823)

/** "Internal" for a typed Internal failure; a defect or a success reads differently. */
const outcome = <A, E>(exit: Exit.Exit<A, E>): string =>
  Exit.match(exit, {
    onSuccess: () => "success",
    onFailure: (cause) => (cause._tag === "Fail" ? String((cause.error as { _tag?: unknown })._tag) : `cause ${cause._tag}`)
  })

const bigSkill = (name: string, fill: string) => skillMd(name, "Does one useful thing.", `# Steps\n\n${fill.repeat(15_000)}\n`)

const pending = Effect.flatMap(Inbox, (inbox) => inbox.list({ state: "pending" }))

describe("inbox storage faults", () => {
  it.scoped("a skill push on a full disk fails as Internal (typed) and queues nothing; with space back it queues", () =>
    Effect.gen(function* () {
      yield* fillDisk
      const exit = yield* pushSkill("alice", "notes", bigSkill("notes", "a")).pipe(Effect.exit)
      expect(outcome(exit)).toBe("Internal")
      expect(yield* pending).toEqual([])

      yield* spaceBack
      const queued = yield* pushSkill("alice", "notes", bigSkill("notes", "a"))
      expect((yield* pending).map((r) => r.id)).toEqual([queued.approval_id])
    }).pipe(Effect.provide(makeStack().layer)))

  it.scoped("an edited push on a full disk fails as Internal and leaves the older row pending (its withdrawal is rolled back)", () =>
    Effect.gen(function* () {
      const first = yield* pushSkill("alice", "notes", skillMd("notes"))
      yield* fillDisk
      const exit = yield* pushSkill("alice", "notes", bigSkill("notes", "b")).pipe(Effect.exit)
      expect(outcome(exit)).toBe("Internal")
      const rows = yield* pending
      expect(rows.map((r) => [r.id, r.state])).toEqual([[first.approval_id, "pending"]])
    }).pipe(Effect.provide(makeStack().layer)))
})
