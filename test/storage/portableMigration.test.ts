/**
 * A migration of statements both dialects take (`portable(...)` in src/storage/migrations/index.ts):
 * its statements run in order on the database of either dialect, and the first that fails stops the
 * rest (the migrator then rolls the migration back).
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { portable } from "../../src/storage/migrations/index.ts"
import { TestDb } from "../support/testDb.ts"

describe("a portable migration", () => {
  it.effect("adds a column on either dialect, statement after statement", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`INSERT INTO run_slots (token, profile, at) VALUES ('t1', 'default', 1)`
      yield* portable("ALTER TABLE run_slots ADD COLUMN note TEXT", "UPDATE run_slots SET note = 'kept'")
      expect(yield* sql`SELECT token, note FROM run_slots`).toEqual([{ token: "t1", note: "kept" }])
    }).pipe(Effect.provide(TestDb)))

  it.effect("stops at the first statement that fails", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const failed = yield* Effect.flip(portable("ALTER TABLE no_such_table ADD COLUMN note TEXT", "ALTER TABLE run_slots ADD COLUMN later TEXT"))
      expect(failed).toBeDefined()
      yield* sql`INSERT INTO run_slots (token, profile, at) VALUES ('t1', 'default', 1)`
      expect(Object.keys((yield* sql`SELECT * FROM run_slots`)[0]!)).not.toContain("later")
    }).pipe(Effect.provide(TestDb)))
})
