/**
 * The insertion order a query breaks ties with (`storage/rowOrder.ts`): SQLite's rowid for any
 * table, PostgreSQL's `insert_seq` for the tables that have it; on PostgreSQL a table without it is
 * a defect named at the query, never a silently different order.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { insertionOrder } from "../../src/storage/rowOrder.ts"
import { TEST_DIALECT, TestDb } from "../support/testDb.ts"

describe("insertion order", () => {
  it.effect("orders rows inserted in the same millisecond as they were inserted", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      for (const id of ["b", "c", "a"]) {
        yield* sql`INSERT INTO inbox (id, kind, client, state, created_at, payload) VALUES (${id}, 'skill_put', 'alice', 'pending', 5, '{}')`
      }
      const rows = yield* sql<{ id: string }>`SELECT id FROM inbox ORDER BY created_at DESC, ${insertionOrder(sql, "inbox")} DESC`
      expect(rows.map((r) => r.id)).toEqual(["a", "c", "b"])
    }).pipe(Effect.provide(TestDb)))

  it.effect.runIf(TEST_DIALECT === "pg")("on PostgreSQL, a table without insert_seq is refused by name", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      expect(() => insertionOrder(sql, "clients")).toThrow(/clients has no insert_seq/)
    }).pipe(Effect.provide(TestDb)))
})
