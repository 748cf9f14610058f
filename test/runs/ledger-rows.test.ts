/**
 * Ledger rows are decoded, not cast: a row the bridge did not write as it reads it (a status no run
 * has, JSON that does not parse or has the wrong shape, text in an integer column) fails the read
 * with a `LedgerError` whose text names the field, never a crash or a wrong value passed on.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { Ledger, ledgerFailureText, RunRecord } from "../../src/services/runs/Ledger.ts"
import { columnOf } from "../../src/storage/rows.ts"
import { LedgerLive } from "../../src/services/runs/LedgerSql.ts"
import { TEST_DIALECT, TestDb } from "../support/testDb.ts"
import { newRun } from "../support/records.ts"


const withLedger = <A, E>(body: Effect.Effect<A, E, Ledger | SqlClient.SqlClient>) =>
  body.pipe(Effect.provide(LedgerLive), Effect.provide(TestDb))

/** Inserts run r1, spoils it with `spoil`, and returns the failure text of every read given. */
const failureOf = <A>(spoil: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>, read: (ledger: typeof Ledger.Service) => Effect.Effect<A, unknown>) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const sql = yield* SqlClient.SqlClient
    yield* ledger.insert(newRun("r1"))
    yield* Effect.orDie(spoil(sql))
    const e = yield* Effect.flip(read(ledger))
    expect((e as { _tag: string })._tag).toBe("LedgerError")
    return ledgerFailureText(e as Parameters<typeof ledgerFailureText>[0])
  })

describe("ledger rows that do not decode", () => {
  it.effect("a status no run has fails every read of the run, named", () =>
    withLedger(Effect.gen(function* () {
      const text = yield* failureOf((sql) => sql`UPDATE runs SET status = 'exploded' WHERE run_id = 'r1'`, (l) => l.get("r1"))
      expect(text).toContain("ledger get failed")
      expect(text).toContain("status")
      expect(text).toContain("exploded")
      const ledger = yield* Ledger
      expect(ledgerFailureText((yield* Effect.flip(ledger.list({ client: null, limit: 10 }))) as never)).toContain("ledger list failed")
      expect(ledgerFailureText((yield* Effect.flip(ledger.active)) as never)).toContain("ledger active failed")
      // modify reads the run inside its transaction: it fails the same way and writes nothing.
      const modify = yield* Effect.flip(ledger.modify("r1", () => ({ change: { status: "completed" }, result: 0 })))
      expect(modify._tag).toBe("LedgerError")
      const sql = yield* SqlClient.SqlClient
      expect((yield* sql<{ status: string }>`SELECT status FROM runs WHERE run_id = 'r1'`)[0]!.status).toBe("exploded")
    })))

  it.effect("usage that is not JSON, or JSON that is no object, is a LedgerError", () =>
    withLedger(Effect.gen(function* () {
      expect(yield* failureOf((sql) => sql`UPDATE runs SET usage = '{"total_tokens": 3' WHERE run_id = 'r1'`, (l) => l.get("r1"))).toContain("usage")
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE runs SET usage = '[1,2]' WHERE run_id = 'r1'`
      const ledger = yield* Ledger
      expect(ledgerFailureText((yield* Effect.flip(ledger.get("r1"))) as never)).toContain("usage")
    })))

  it.effect("a pending clarification of the wrong shape is a LedgerError", () =>
    withLedger(Effect.gen(function* () {
      const text = yield* failureOf(
        (sql) => sql`UPDATE runs SET pending = '{"request_id":"q1","kind":"clarification","question":7}' WHERE run_id = 'r1'`,
        (l) => l.byIdempotencyKey("default", "none").pipe(Effect.zipRight(l.get("r1")))
      )
      expect(text).toContain("pending")
      expect(text).toContain("question")
    })))

  // PostgreSQL's BIGINT refuses text, so there the spoilt value is one past 2^53: it arrives as its
  // digits (storage/pg/pgTypes.ts), which the row Schema refuses the same way.
  it.effect("text in an integer column is a LedgerError, not a NaN time", () =>
    withLedger(Effect.gen(function* () {
      const text = yield* failureOf((sql) => sql.onDialectOrElse({
        pg: () => sql`UPDATE runs SET created_at = 9007199254740993 WHERE run_id = 'r1'`,
        orElse: () => sql`UPDATE runs SET created_at = 'yesterday' WHERE run_id = 'r1'`
      }), (l) => l.get("r1"))
      expect(text).toContain("created_at")
    })))

  it.effect("event data that is not a JSON object fails the events page", () =>
    withLedger(Effect.gen(function* () {
      const text = yield* failureOf((sql) => sql`UPDATE run_events SET data = 'not json' WHERE run_id = 'r1'`, (l) => l.eventsAfter("r1", 0, 10))
      expect(text).toContain("ledger eventsAfter failed")
      expect(text).toContain("data")
      const ledger = yield* Ledger
      expect((yield* Effect.flip(ledger.eventsBefore("r1", 10, 10)))._tag).toBe("LedgerError")
    })))

  it.effect("a sound row still reads back whole", () =>
    withLedger(Effect.gen(function* () {
      const ledger = yield* Ledger
      yield* ledger.insert(newRun("r1"))
      yield* ledger.modify("r1", () => ({
        change: {
          usage: { total_tokens: 3 },
          pending: { request_id: "q1", kind: "clarification", question: "which?", choices: ["a", "b"], multi_select: false }
        },
        result: 0
      }))
      const r = Option.getOrThrow(yield* ledger.get("r1"))
      expect(r.usage).toEqual({ total_tokens: 3 })
      expect(r.pending).toEqual({ request_id: "q1", kind: "clarification", question: "which?", choices: ["a", "b"], multi_select: false })
      expect(r.status).toBe("running")
    })))
})

describe("the runs row is the record Schema's", () => {
  it.effect("every field of RunRecord is a column of runs, written at insert, and every other column is the table's own", () =>
    withLedger(Effect.gen(function* () {
      const ledger = yield* Ledger
      const sql = yield* SqlClient.SqlClient
      const inserted = yield* ledger.insert(newRun("r1", { instructions: "be brief", sessionKey: "alice:s", face: "a2a" }))
      const row = (yield* sql`SELECT * FROM runs WHERE run_id = 'r1'`)[0]!
      const columns = Object.keys(RunRecord.fields).map(columnOf)
      expect(columns.filter((c) => !(c in row))).toEqual([])
      // The queue's claim time, and PostgreSQL's insertion order: the table's, not the record's.
      expect(Object.keys(row).filter((c) => !columns.includes(c)).sort()).toEqual(TEST_DIALECT === "pg" ? ["admitted_at", "insert_seq"] : ["admitted_at"])
      expect(row.instructions).toBe("be brief")
      expect(row.session_key).toBe("alice:s")
      expect(row.face).toBe("a2a")
      expect(Option.getOrThrow(yield* ledger.get("r1"))).toEqual(inserted)
    })))

  it.effect("a write changes the columns it changed and leaves the others as stored", () =>
    withLedger(Effect.gen(function* () {
      const ledger = yield* Ledger
      const sql = yield* SqlClient.SqlClient
      yield* ledger.insert(newRun("r1"))
      // A column the record's writes never touch, changed behind the ledger: a write of other fields keeps it.
      yield* sql`UPDATE runs SET input = 'changed elsewhere' WHERE run_id = 'r1'`
      const { record } = yield* ledger.modify("r1", () => ({ change: { status: "completed", usage: { total_tokens: 1 } }, result: 0 }))
      const row = (yield* sql<{ input: string; status: string; usage: string; ended_at: number }>`SELECT input, status, usage, ended_at FROM runs WHERE run_id = 'r1'`)[0]!
      expect(row).toEqual({ input: "changed elsewhere", status: "completed", usage: '{"total_tokens":1}', ended_at: record.endedAt })
    })))
})
