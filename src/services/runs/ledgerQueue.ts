/**
 * The ledger's SQL for the queue in front of Hermes's capacity (issue 38): a queued run is a `runs`
 * row with status `queued` and no Hermes run id (`''`). A run holds a slot of its profile from its
 * claim (still `queued`, with `admitted_at` set: its start is on its way to Hermes) or its start
 * until it ends. What to admit and when is decided by
 * `admission.ts`; these statements only count, order and claim, each claim in one transaction that
 * holds the profile (`LedgerDialect.lockProfile`), so replicas on one database never admit past a
 * profile's capacity.
 */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Clock, Effect, Option, Schema } from "effect"
import type { ParseError } from "effect/ParseResult"
import { transactionKeepingCause } from "../../storage/transaction.ts"
import type { LedgerError, LedgerShape, RunRecord } from "./Ledger.ts"
import type { LedgerDialect } from "./ledgerDialect.ts"

/** The rows that hold a Hermes slot (and count to a client's live cap): not ended, and started or claimed. */
export const LIVE = (sql: SqlClient.SqlClient): Fragment => sql`ended_at IS NULL AND (status <> 'queued' OR admitted_at IS NOT NULL)`
/** The rows waiting in the queue: queued and not claimed. */
export const WAITING = (sql: SqlClient.SqlClient): Fragment => sql`status = 'queued' AND admitted_at IS NULL`

type Queue = Pick<LedgerShape, "profileLoad" | "queuedOf" | "queueDepths" | "claimNext" | "unclaim" | "requeueStale" | "reserveSlot" | "releaseSlot">

/** Slots held by starts on their way to Hermes are young: one older than this was lost with its daemon. */
export const SLOT_FRESH_MS = 10 * 60_000

const decodeLoad = Schema.decodeUnknown(Schema.Array(Schema.Struct({ live: Schema.NullOr(Schema.Int), queued: Schema.NullOr(Schema.Int) })))
const decodeQueued = Schema.decodeUnknown(Schema.Array(Schema.Struct({ run_id: Schema.String, client: Schema.String, created_at: Schema.Int })))
const decodeDepths = Schema.decodeUnknown(Schema.Array(Schema.Struct({ profile: Schema.String, n: Schema.Int })))
const decodeIds = Schema.decodeUnknown(Schema.Array(Schema.Struct({ run_id: Schema.String })))

export const makeLedgerQueue = (
  sql: SqlClient.SqlClient,
  dialect: LedgerDialect,
  fail: (operation: string) => (cause: unknown) => LedgerError,
  firstRecord: (rows: ReadonlyArray<unknown>) => Effect.Effect<Option.Option<RunRecord>, ParseError>
): Queue => {
  const inTransaction = transactionKeepingCause(sql)
  /** The profile's live runs and claims, plus the slots of starts on their way to Hermes. */
  const liveOn = (profile: string, freshSince: number) =>
    sql`SELECT (SELECT count(*) FROM runs WHERE profile = ${profile} AND ${LIVE(sql)})
        + (SELECT count(*) FROM run_slots WHERE profile = ${profile} AND at >= ${freshSince}) AS n`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: Schema.Int })))),
      Effect.map((rows) => rows[0]?.n ?? 0)
    )

  /**
   * The next queued run of the profile, round-robin by client: among clients below their live cap,
   * the one admitted least recently on this profile (never: first), then its oldest queued run.
   */
  const next = (profile: string, clientCap: number) =>
    sql`SELECT runs.run_id FROM runs
        WHERE runs.profile = ${profile} AND runs.status = 'queued' AND runs.admitted_at IS NULL
          AND (SELECT count(*) FROM runs l WHERE l.client = runs.client AND l.ended_at IS NULL
            AND (l.status <> 'queued' OR l.admitted_at IS NOT NULL)) < ${clientCap}
        ORDER BY COALESCE((SELECT max(a.admitted_at) FROM runs a WHERE a.profile = runs.profile AND a.client = runs.client), -1),
          runs.created_at, ${dialect.insertionOrder("runs")}
        LIMIT 1`.pipe(Effect.flatMap(decodeIds), Effect.map((rows) => Option.fromNullable(rows[0]?.run_id)))

  return {
    profileLoad: (profile) =>
      sql`SELECT sum(CASE WHEN ${WAITING(sql)} THEN 1 ELSE 0 END) AS queued, sum(CASE WHEN ${WAITING(sql)} THEN 0 ELSE 1 END) AS live
          FROM runs WHERE profile = ${profile} AND ended_at IS NULL`.pipe(
        Effect.flatMap(decodeLoad),
        Effect.map((rows) => ({ live: rows[0]?.live ?? 0, queued: rows[0]?.queued ?? 0 })),
        Effect.mapError(fail("profileLoad"))
      ),

    queuedOf: (profile) =>
      sql`SELECT run_id, client, created_at FROM runs WHERE profile = ${profile} AND ${WAITING(sql)}
          ORDER BY created_at, ${dialect.insertionOrder()}`.pipe(
        Effect.flatMap(decodeQueued),
        Effect.map((rows) => rows.map((r) => ({ runId: r.run_id, client: r.client, createdAt: r.created_at }))),
        Effect.mapError(fail("queuedOf"))
      ),

    queueDepths: sql`SELECT profile, count(*) AS n FROM runs WHERE ${WAITING(sql)} GROUP BY profile ORDER BY profile`.pipe(
      Effect.flatMap(decodeDepths),
      Effect.mapError(fail("queueDepths"))
    ),

    claimNext: (profile, capacity, clientCap) =>
      Effect.gen(function* () {
        yield* dialect.lockProfile(profile)
        const live = yield* liveOn(profile, (yield* Clock.currentTimeMillis) - SLOT_FRESH_MS)
        if (live >= capacity) return Option.none()
        const id = yield* next(profile, clientCap)
        if (Option.isNone(id)) return Option.none()
        const now = yield* Clock.currentTimeMillis
        yield* sql`UPDATE runs SET admitted_at = ${now}, version = version + 1 WHERE run_id = ${id.value} AND ${WAITING(sql)}`
        const record = yield* sql`SELECT * FROM runs WHERE run_id = ${id.value}`.pipe(Effect.flatMap(firstRecord))
        return Option.map(record, (r) => ({ record: r, live }))
      }).pipe(inTransaction, Effect.mapError(fail("claimNext"))),

    reserveSlot: (profile, capacity, token, freshSince) =>
      Effect.gen(function* () {
        yield* dialect.lockProfile(profile)
        if ((yield* liveOn(profile, freshSince)) >= capacity) return false
        yield* sql`INSERT INTO run_slots (token, profile, at) VALUES (${token}, ${profile}, ${yield* Clock.currentTimeMillis})`
        return true
      }).pipe(inTransaction, Effect.mapError(fail("reserveSlot"))),

    releaseSlot: (token) => sql`DELETE FROM run_slots WHERE token = ${token}`.pipe(Effect.asVoid, Effect.mapError(fail("releaseSlot"))),

    unclaim: (runId) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const rows = yield* sql`UPDATE runs SET admitted_at = NULL, updated_at = ${now}, version = version + 1
            WHERE run_id = ${runId} AND status = 'queued' AND admitted_at IS NOT NULL RETURNING run_id`
        return rows.length > 0
      }).pipe(Effect.mapError(fail("unclaim"))),

    requeueStale: (claimedBefore) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const rows = yield* sql`UPDATE runs SET admitted_at = NULL, updated_at = ${now}, version = version + 1
            WHERE status = 'queued' AND admitted_at IS NOT NULL AND admitted_at < ${claimedBefore} RETURNING run_id`
        yield* sql`DELETE FROM run_slots WHERE at < ${claimedBefore}`
        return rows.length
      }).pipe(Effect.mapError(fail("requeueStale")))
  }
}
