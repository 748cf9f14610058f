/**
 * The counts every start makes (a profile's load and live runs, a client's live and waiting runs)
 * read only the live or waiting rows, never a profile's or a client's whole history. Without
 * statistics SQLite chose `runs_admitted` (every run of the profile, ended ones included) for the
 * profile's counts and `runs_by_client` for a client's waiting runs: with 50,000 ended runs in the
 * ledger each start held the event loop some 40 ms in those two counts (issue 41, docs/PERFORMANCE.md,
 * "10,000 live runs"). Migration 0017 gives each count a partial index of its own rows.
 *
 * The statements are the ledger's own, captured as they run (`@effect/sql`'s statement transformer),
 * then explained. SQLite only: PostgreSQL plans by its statistics, and a plan at this size says
 * nothing of a large table there.
 */
import { SqlClient, Statement } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Ledger } from "../../src/services/runs/Ledger.ts"
import { LedgerLive } from "../../src/services/runs/LedgerSql.ts"
import { newRun } from "../support/records.ts"
import { TEST_DIALECT, TestDb } from "../support/testDb.ts"

/** The SQL text and parameters of every statement `body` runs. */
const captured = <A, E, R>(body: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const seen: Array<readonly [string, ReadonlyArray<unknown>]> = []
    const transformer: Statement.Statement.Transformer = (self) =>
      Effect.sync(() => {
        seen.push(self.compile())
        return self
      })
    yield* body.pipe(Statement.withTransformer(transformer))
    return seen
  })

/** SQLite's plan of a statement, its details joined. */
const planOf = (sql: SqlClient.SqlClient, text: string, params: ReadonlyArray<unknown>) =>
  Effect.map(sql.unsafe<{ detail: string }>(`EXPLAIN QUERY PLAN ${text}`, params as Array<unknown>), (rows) => rows.map((r) => r.detail).join(" | "))

describe.skipIf(TEST_DIALECT === "pg")("the ledger's counts of a start", () => {
  it.effect("read the live and waiting rows through their partial indexes, not a profile's or a client's whole history", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const sql = yield* SqlClient.SqlClient
      yield* ledger.insert(newRun("r-ended"))
      yield* ledger.modify("r-ended", () => ({ change: { status: "completed" }, result: undefined }))
      const statements = yield* captured(Effect.gen(function* () {
        yield* ledger.profileLoad("default")
        yield* ledger.reserveSlot("default", 10, "slot-1", 0)
        yield* ledger.insert(newRun("r-live", { maxActive: 10 }))
        yield* ledger.insert(newRun("r-queued", { status: "queued", hermesRunId: "", maxQueued: 10 }))
      }))
      const counts = statements.filter(([text]) => /count\(\*\)|sum\(/i.test(text) && /FROM runs\b/.test(text))
      // profileLoad, liveOn (the slot), the client's live runs, the client's waiting runs.
      expect(counts.length).toBe(4)
      for (const [text, params] of counts) {
        const plan = yield* planOf(sql, text, params)
        const onRuns = plan.split(" | ").filter((step) => / runs /.test(`${step} `))
        expect(onRuns.length, plan).toBeGreaterThan(0)
        for (const step of onRuns) expect(step, `${text}\n${plan}`).toMatch(/USING (COVERING )?INDEX (runs_live_load|runs_live_client|runs_waiting_client) /)
      }
    }).pipe(Effect.provide(LedgerLive), Effect.provide(TestDb)))
})
