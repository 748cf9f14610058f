/**
 * The ledger's reads for the operator's console and `/metrics`: a run's summary (with its newest
 * event), live runs per client, the usage of recent runs, the filters' choices, the counts of rows
 * kept and a version that moves whenever any of it may have. They read only the ledger's own
 * tables (`runs`, `run_events`); the console adds the stop requests and clients from their owners.
 */
import type { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { storedRow } from "../../storage/rows.ts"
import { type LedgerError, type LedgerShape, RunBrief } from "./Ledger.ts"
import type { LedgerDialect } from "./ledgerDialectShape.ts"

/**
 * A run's summary row, from the one brief Schema (`Ledger.ts`, whose row facts are the record's):
 * the status through the one status Schema; `usage` as its stored text; the newest event's type and time.
 */
const briefRows = storedRow(RunBrief, { usageText: "usage", lastEventType: "last_type", lastEventAt: "last_at" })
const decodeCounts = Schema.decodeUnknown(Schema.Array(Schema.Struct({ client: Schema.String, face: Schema.Literal("mcp", "a2a"), n: Schema.Int })))
const decodeUsages = Schema.decodeUnknown(Schema.Array(Schema.Struct({ client: Schema.String, usage: Schema.NullOr(Schema.String) })))
const decodeValues = Schema.decodeUnknown(Schema.Array(Schema.Struct({ v: Schema.String })))
const decodeTotals = Schema.decodeUnknown(Schema.Array(Schema.Struct({ runs: Schema.Int, events: Schema.Int })))

type Briefs = Pick<LedgerShape, "briefs" | "brief" | "liveByClient" | "usageSince" | "runChoices" | "version" | "totals" | "present">

const decodeIds = Schema.decodeUnknown(Schema.Array(Schema.Struct({ run_id: Schema.String })))

export const makeLedgerBriefs = (sql: SqlClient.SqlClient, dialect: LedgerDialect, fail: (operation: string) => (cause: unknown) => LedgerError): Briefs => {
  const select = sql`SELECT runs.run_id, runs.client, runs.agent, runs.profile, runs.status, runs.created_at, runs.updated_at, runs.ended_at, runs.usage, runs.face,
      (SELECT e.type FROM run_events e WHERE e.run_id = runs.run_id ORDER BY e.seq DESC LIMIT 1) AS last_type,
      (SELECT e.at FROM run_events e WHERE e.run_id = runs.run_id ORDER BY e.seq DESC LIMIT 1) AS last_at
    FROM runs`
  const values = (q: Effect.Effect<ReadonlyArray<unknown>, unknown>) => q.pipe(Effect.flatMap(decodeValues), Effect.map((rows) => rows.map((r) => r.v)))
  return {
    briefs: (filter) => {
      const where = [
        ...(filter.client === undefined ? [] : [sql`runs.client = ${filter.client}`]),
        ...(filter.status === undefined ? [] : [sql`runs.status = ${filter.status}`]),
        ...(filter.agent === undefined ? [] : [sql`runs.agent = ${filter.agent}`])
      ]
      return sql`${select} WHERE ${sql.and(where)}
          ORDER BY (runs.ended_at IS NULL) DESC, runs.created_at DESC, ${dialect.insertionOrder("runs")} DESC LIMIT ${filter.limit}`.pipe(
        Effect.flatMap(briefRows.decode),
        Effect.mapError(fail("briefs"))
      )
    },
    brief: (runId) =>
      sql`${select} WHERE runs.run_id = ${runId}`.pipe(
        Effect.flatMap(briefRows.decode),
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.mapError(fail("brief"))
      ),
    liveByClient: sql`SELECT client, face, count(*) AS n FROM runs WHERE ended_at IS NULL GROUP BY client, face ORDER BY client, face`.pipe(
      Effect.flatMap(decodeCounts),
      Effect.mapError(fail("liveByClient"))
    ),
    usageSince: (since) =>
      sql`SELECT client, usage FROM runs WHERE created_at >= ${since}`.pipe(Effect.flatMap(decodeUsages), Effect.mapError(fail("usageSince"))),
    runChoices: Effect.all({
      clients: values(sql`SELECT DISTINCT client AS v FROM runs ORDER BY v`),
      agents: values(sql`SELECT DISTINCT agent AS v FROM runs ORDER BY v`)
    }).pipe(Effect.mapError(fail("runChoices"))),
    // Live runs by their last write, ended ones by count and newest end: the live-runs and ended indexes.
    version: values(sql`SELECT
        (SELECT count(*) FROM runs) || ':' ||
        (SELECT coalesce(max(ended_at), 0) FROM runs WHERE ended_at IS NOT NULL) || ':' ||
        (SELECT coalesce(sum(updated_at % 1000003), 0) || '.' || count(*) FROM runs WHERE ended_at IS NULL) AS v`).pipe(
      Effect.map((vs) => vs[0] ?? ""),
      Effect.mapError(fail("version"))
    ),
    present: (runIds) =>
      runIds.length === 0
        ? Effect.succeed(new Set<string>())
        : sql`SELECT run_id FROM runs WHERE ${sql.in("run_id", runIds)}`.pipe(
          Effect.flatMap(decodeIds),
          Effect.map((rows) => new Set(rows.map((r) => r.run_id))),
          Effect.mapError(fail("present"))
        ),
    totals: sql`SELECT (SELECT count(*) FROM runs) AS runs, (SELECT count(*) FROM run_events) AS events`.pipe(
      Effect.flatMap(decodeTotals),
      Effect.map((rows) => rows[0] ?? { runs: 0, events: 0 }),
      Effect.mapError(fail("totals"))
    )
  }
}
