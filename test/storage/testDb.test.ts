/**
 * The test database of either project: migrated, private to each build, and of the dialect the run
 * names (so a pg run that quietly fell back to SQLite fails here).
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { TEST_DIALECT, TestDb } from "../support/testDb.ts"

const dialectOf = Effect.map(SqlClient.SqlClient, (sql) => sql.onDialectOrElse({ pg: () => "pg", sqlite: () => "sqlite", orElse: () => "other" }))

describe("TestDb", () => {
  it.effect("is of the run's dialect, with the bridge's tables", () =>
    Effect.gen(function* () {
      expect(yield* dialectOf).toBe(TEST_DIALECT)
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql`SELECT COUNT(*) AS n FROM runs`
      expect(Number((rows[0] as { n: unknown }).n)).toBe(0)
    }).pipe(Effect.provide(TestDb)))

  it.effect("is a database of its own for each build", () =>
    Effect.gen(function* () {
      yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql`INSERT INTO run_stop_requests (run_id, requested_by, via, requested_at) VALUES ('r1', 'op', 'cli', 1)`).pipe(Effect.provide(TestDb))
      const rows = yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT run_id FROM run_stop_requests`).pipe(Effect.provide(TestDb))
      expect(rows).toEqual([])
    }))
})
