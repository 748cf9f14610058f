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
      // A number on both (node-postgres gives INT8 as text unless told otherwise: pg/pgTypes.ts).
      expect((rows[0] as { n: unknown }).n).toBe(0)
      const [big] = yield* sql`SELECT CAST(9007199254740991 AS BIGINT) AS safe, CAST(9007199254740993 AS BIGINT) AS past`
      expect((big as { safe: unknown }).safe).toBe(Number.MAX_SAFE_INTEGER)
      // Past 2^53 SQLite rounds (better-sqlite3 without safeIntegers); the PostgreSQL driver keeps the text.
      if (TEST_DIALECT === "pg") expect((big as { past: unknown }).past).toBe("9007199254740993")
    }).pipe(Effect.provide(TestDb)))

  it.effect("is a database of its own for each build", () =>
    Effect.gen(function* () {
      yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql`INSERT INTO run_stop_requests (run_id, requested_by, via, requested_at) VALUES ('r1', 'op', 'cli', 1)`).pipe(Effect.provide(TestDb))
      const rows = yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT run_id FROM run_stop_requests`).pipe(Effect.provide(TestDb))
      expect(rows).toEqual([])
    }))
})
