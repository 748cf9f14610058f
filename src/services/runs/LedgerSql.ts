/**
 * The run ledger's SQL (migration 0002_ledger): portable statements through `@effect/sql`'s `sql`
 * template, the few that differ by dialect from `ledgerDialect.ts` (SQLite's in
 * `sqlite/LedgerSqlite.ts`), and what a write means from `ledgerWrite.ts`. The `runs` row is the
 * record Schema's (`RunRecord` in `Ledger.ts`, through `storage/rows.ts`): no column is spelled
 * here but in WHERE and ORDER BY clauses, and the queue's `admitted_at`.
 */
import { SqlClient } from "@effect/sql"
import { Array as Arr, Clock, Effect, Layer, Option, PubSub, Schema, Stream } from "effect"
import type { ParseError } from "effect/ParseResult"
import { storedRow } from "../../storage/rows.ts"
import { transactionKeepingCause } from "../../storage/transaction.ts"
import { Metrics } from "../../common/Metrics.ts"
import { HUB_CAPACITY } from "../../storage/ChangeFeed.ts"
import { ClientAtCap, ClientQueueFull, IdempotencyTaken, Ledger, LedgerError, LedgerRunMissing, type LedgerShape, type ListFilter, type Modified, type RunChange, RunRecord, type StoredEvent } from "./Ledger.ts"
import { ledgerDialect } from "./ledgerDialect.ts"
import { isEmptyChange, newRecord, OUTPUT_CHUNK_BYTES, planWrite, replaceNeedsStoredOutput } from "./ledgerWrite.ts"
import { makeLedgerBriefs } from "./ledgerBriefs.ts"
import { LIVE, makeLedgerQueue, WAITING } from "./ledgerQueue.ts"

/** The output's head and chunk sizes are the write plan's (`ledgerWrite.ts`); re-exported for the ledger's tests. */
export { OUTPUT_CHUNK_BYTES, OUTPUT_HEAD_CHARS } from "./ledgerWrite.ts"

const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * The `runs` row, from the one record Schema (`Ledger.ts`): its decode (the status through the one
 * status Schema, `usage` and `pending` parsed from their JSON text; a row that does not decode fails
 * the read, a `LedgerError` whose cause names the column, never a wrong value) and the values of its
 * INSERT and UPDATE.
 */
const runRows = storedRow(RunRecord)
const EventRow = Schema.Struct({ seq: Schema.Int, type: Schema.String, at: Schema.Int, data: Schema.parseJson(JsonObject) })
const ChunkRow = Schema.Struct({ start_byte: Schema.Int, bytes: Schema.Uint8ArrayFromSelf })
const TextRow = Schema.Struct({ text: Schema.String })
const CountRow = Schema.Struct({ n: Schema.Int })

// Either, not Effect: the ledger decodes on every read of the hot tools, and the synchronous decoder
// skips a fiber step per row batch (an Either is an Effect, so the pipes below stay as they are).
const decodeEvents = Schema.decodeUnknownEither(Schema.Array(EventRow))
const decodeChunks = Schema.decodeUnknownEither(Schema.Array(ChunkRow))
const decodeTexts = Schema.decodeUnknownEither(Schema.Array(TextRow))
const decodeCounts = Schema.decodeUnknownEither(Schema.Array(CountRow))

const records = (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<RunRecord>, ParseError> => runRows.decode(rows)
const firstRecord = (rows: ReadonlyArray<unknown>) => Effect.map(records(rows), Arr.head)
const events = (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<StoredEvent>, ParseError> => decodeEvents(rows)
const count = (rows: ReadonlyArray<unknown>) => Effect.map(decodeCounts(rows), (rs) => rs[0]?.n ?? 0)

export const makeLedgerSql = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const metrics = yield* Metrics
  // A run recorded or written here is announced to this process's `written` subscribers once
  // committed (the console's page and the push worker wake on it, never on a timer); other
  // processes hear the commit through their change feed. A hub of its own, not the feed's `runs`
  // topic: every wait subscribes to that one (for other processes' commits), and a live run writes
  // many times a second.
  const writes = yield* PubSub.sliding<string>(HUB_CAPACITY)
  const announce = (runId: string) => PubSub.publish(writes, runId)
  const dialect = yield* ledgerDialect(sql)
  const inTransaction = transactionKeepingCause(sql)
  const fail = (operation: string) => (cause: unknown) => new LedgerError({ operation, cause })

  const getRow = (runId: string) =>
    sql`SELECT * FROM runs WHERE run_id = ${runId}`.pipe(Effect.flatMap(firstRecord))

  /** The run, locked against other writers until the transaction ends (`ledgerDialect.ts`). */
  const getRowForWrite = (runId: string) =>
    sql`SELECT * FROM runs WHERE run_id = ${runId} ${dialect.lockForWrite}`.pipe(Effect.flatMap(firstRecord))

  const readOutput = (runId: string) =>
    sql`SELECT text FROM run_output WHERE run_id = ${runId} ORDER BY start_byte`.pipe(
      Effect.flatMap(decodeTexts),
      Effect.map((rows) => rows.map((r) => r.text).join(""))
    )

  /**
   * Stores the plan of applying `change` to `current` (inside the caller's transaction); returns the
   * new record. The row is updated first, only while it is still at `current`'s version: none when
   * it is not (another writer came between; nothing was written), so a caller that did not read
   * `current` in this transaction can read the row and decide again.
   */
  const write = (current: RunRecord, change: RunChange, now: number) =>
    Effect.gen(function* () {
      const runId = current.runId
      const stored = replaceNeedsStoredOutput(current, change) ? yield* readOutput(runId) : null
      const plan = planWrite(current, change, now, stored)
      const next = plan.next
      // The columns the plan changed, and always `updated_at`: every write is an UPDATE of the row
      // (PostgreSQL's change feed is its trigger), and `version` (one more) with them.
      const set = yield* runRows.changed(current, next, ["updatedAt"])
      const updated = yield* sql`UPDATE runs SET ${sql.update(set)} WHERE run_id = ${runId} AND version = ${current.version} RETURNING run_id`
      if (updated.length === 0) return Option.none()
      for (const e of plan.events) {
        yield* sql`INSERT INTO run_events (run_id, seq, type, at, data) VALUES (${runId}, ${e.seq}, ${e.type}, ${e.at}, ${JSON.stringify(e.data)})`
      }
      if (plan.dropEventsThrough !== null) yield* sql`DELETE FROM run_events WHERE run_id = ${runId} AND seq <= ${plan.dropEventsThrough}`
      if (plan.clearOutput) yield* sql`DELETE FROM run_output WHERE run_id = ${runId}`
      for (const c of plan.chunks) {
        yield* sql`INSERT INTO run_output (run_id, start_byte, end_byte, text) VALUES (${runId}, ${c.startByte}, ${c.endByte}, ${c.text})`
      }
      return Option.some({ record: next, appended: plan.events })
    })

  /** A row this transaction read (or inserted) at another version than its own write found: cannot happen. */
  const changedUnderLock = (runId: string) => Effect.dieMessage(`run ${runId} changed under its writer's transaction`)

  /** `write` of a row this transaction read (or inserted): it is still at its version, the row being this transaction's. */
  const writeLocked = (current: RunRecord, change: RunChange, now: number) =>
    Effect.flatMap(write(current, change, now), (written) => (Option.isSome(written) ? Effect.succeed(written.value) : changedUnderLock(current.runId)))

  const listWhere = (filter: Omit<ListFilter, "limit" | "after">) => [
    ...(filter.client === null ? [] : [sql`client = ${filter.client}`]),
    ...(filter.status === undefined ? [] : [sql`status = ${filter.status}`]),
    ...(filter.statuses === undefined ? [] : [filter.statuses.length === 0 ? sql`1 = 0` : sql.in("status", filter.statuses)]),
    ...(filter.sessionKey === undefined ? [] : [sql`session_key = ${filter.sessionKey}`]),
    ...(filter.updatedSince === undefined ? [] : [sql`updated_at >= ${filter.updatedSince}`])
  ]

  const shape: LedgerShape = {
    ...makeLedgerBriefs(sql, dialect, fail),
    ...makeLedgerQueue(sql, dialect, fail, firstRecord),
    insert: (run) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const queued = run.status === "queued"
        if (run.maxActive !== undefined || run.maxQueued !== undefined) {
          // Under the client's lock, the key first (a retry of a recorded start is its run, never
          // refused by the cap that run fills), then the cap (live runs, or queued ones).
          yield* dialect.lockClient(run.client)
          if (run.idempotencyKey !== null) {
            const taken = yield* sql`SELECT run_id FROM runs WHERE profile = ${run.profile} AND idempotency_key = ${run.idempotencyKey}`
            if (taken.length > 0) return yield* new IdempotencyTaken({ key: run.idempotencyKey })
          }
          if (run.maxActive !== undefined && !queued) {
            const active = yield* sql`SELECT count(*) AS n FROM runs WHERE client = ${run.client} AND ${LIVE(sql)}`.pipe(Effect.flatMap(count))
            if (active >= run.maxActive) return yield* new ClientAtCap({ client: run.client, active })
          }
          if (run.maxQueued !== undefined && queued) {
            const waiting = yield* sql`SELECT count(*) AS n FROM runs WHERE client = ${run.client} AND ${WAITING(sql)}`.pipe(Effect.flatMap(count))
            if (waiting >= run.maxQueued) return yield* new ClientQueueFull({ client: run.client, queued: waiting })
          }
        }
        // The whole row, as the record Schema stores it (no column left to its default): the record
        // written is the one read back, so the first event's write starts from it.
        const current = newRecord(run, now)
        const row = yield* runRows.encode(current)
        // A run started at once was admitted now; a queued one when the queue claims it.
        yield* sql`INSERT INTO runs ${sql.insert({ ...row, admitted_at: queued ? null : now })}`
        const { record } = yield* writeLocked(current, { events: [run.started] }, now)
        return record
      }).pipe(
        inTransaction,
        // A queued run is counted as started when Hermes starts it (`modify` giving it its Hermes run id).
        Effect.tap((record) => (record.status === "queued" ? undefined : metrics.runStarted(record.client, record.face))),
        Effect.tap((record) => announce(record.runId)),
        Effect.catchTag("SqlError", (e): Effect.Effect<never, LedgerError | IdempotencyTaken | ClientAtCap | ClientQueueFull> =>
          run.idempotencyKey !== null && dialect.isUniqueViolation(e)
            ? Effect.fail(new IdempotencyTaken({ key: run.idempotencyKey }))
            : Effect.fail(fail("insert")(e))),
        Effect.catchTags({ ParseError: (e) => Effect.fail(fail("insert")(e)) })
      ),

    get: (runId) => getRow(runId).pipe(Effect.mapError(fail("get"))),

    written: Effect.map(PubSub.subscribe(writes), (queue) => Stream.fromQueue(queue)),

    getOwned: (runId, client) =>
      (client === null ? getRow(runId) : sql`SELECT * FROM runs WHERE run_id = ${runId} AND client = ${client}`.pipe(Effect.flatMap(firstRecord))).pipe(
        Effect.mapError(fail("getOwned"))
      ),

    byIdempotencyKey: (profile, key) =>
      sql`SELECT * FROM runs WHERE profile = ${profile} AND idempotency_key = ${key}`.pipe(
        Effect.flatMap(firstRecord),
        Effect.mapError(fail("byIdempotencyKey"))
      ),

    countActive: (client) =>
      sql`SELECT count(*) AS n FROM runs WHERE client = ${client} AND ${LIVE(sql)}`.pipe(
        Effect.flatMap(count),
        Effect.mapError(fail("countActive"))
      ),

    list: (filter) => {
      const order = dialect.insertionOrder()
      const where = [
        ...listWhere(filter),
        // Keyset paging in the list's own order: (created_at, insertion order) below the cursor's.
        // (The subqueries' unqualified columns are their own FROM's: the cursor's row.)
        ...(filter.after === undefined ? [] : [sql`(created_at < (SELECT created_at FROM runs WHERE run_id = ${filter.after})
            OR (created_at = (SELECT created_at FROM runs WHERE run_id = ${filter.after})
              AND ${order} < (SELECT ${order} FROM runs WHERE run_id = ${filter.after})))`])
      ]
      return sql`SELECT * FROM runs WHERE ${sql.and(where)}
          ORDER BY created_at DESC, ${order} DESC LIMIT ${filter.limit}`.pipe(
        Effect.flatMap(records),
        Effect.mapError(fail("list"))
      )
    },

    count: (filter) =>
      sql`SELECT count(*) AS n FROM runs WHERE ${sql.and(listWhere(filter))}`.pipe(Effect.flatMap(count), Effect.mapError(fail("count"))),

    active: sql`SELECT * FROM runs WHERE ended_at IS NULL ORDER BY created_at`.pipe(
      Effect.flatMap(records),
      Effect.mapError(fail("active"))
    ),

    modify: <A>(runId: string, f: (current: RunRecord) => { readonly change: RunChange; readonly result: A }, expected?: RunRecord) => {
      // The write that ended the run, counted once its transaction committed (a rollback counts nothing).
      let ended: RunRecord | null = null
      // A queued run given its Hermes run id: started now (counted once committed).
      let started: RunRecord | null = null
      // Whether the transaction wrote anything (an empty change announces nothing).
      let wrote = false
      /** `f`'s decision from `current`, written while the row is at `current`'s version; none when it is not. */
      const writeDecided = (current: RunRecord, { change, result }: { readonly change: RunChange; readonly result: A }) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const written = yield* write(current, change, now)
          if (Option.isNone(written)) return Option.none()
          const { record, appended } = written.value
          wrote = true
          if (current.endedAt === null && record.endedAt !== null) ended = record
          if (current.hermesRunId === "" && record.hermesRunId !== "") started = record
          return Option.some({ record, appended, result } satisfies Modified<A>)
        })
      return Effect.gen(function* () {
        ended = null
        started = null
        wrote = false
        // The caller's copy first, unread: written if nobody wrote since (a follower's next batch).
        // An empty change is decided from the row as stored (it writes nothing to compare versions by).
        if (expected !== undefined && expected.runId === runId) {
          const decided = f(expected)
          if (!isEmptyChange(decided.change)) {
            const fast = yield* writeDecided(expected, decided)
            if (Option.isSome(fast)) return fast.value
          }
        }
        const found = yield* getRowForWrite(runId)
        if (Option.isNone(found)) return yield* new LedgerRunMissing({ runId })
        const decided = f(found.value)
        if (isEmptyChange(decided.change)) return { record: found.value, appended: [], result: decided.result } satisfies Modified<A>
        const written = yield* writeDecided(found.value, decided)
        if (Option.isNone(written)) return yield* changedUnderLock(runId)
        return written.value
      }).pipe(
        inTransaction,
        Effect.tap(() => Effect.sync(() => {
          const r: RunRecord | null = ended
          if (r !== null) metrics.runFinished(r.client, r.status, r.face)
          const s: RunRecord | null = started
          if (s !== null) metrics.runStarted(s.client, s.face)
        })),
        Effect.tap(() => (wrote ? announce(runId) : Effect.void)),
        Effect.catchTags({ SqlError: (e) => Effect.fail(fail("modify")(e)), ParseError: (e) => Effect.fail(fail("modify")(e)) })
      )
    },

    eventsAfter: (runId, afterSeq, limit) =>
      sql`SELECT seq, type, at, data FROM run_events WHERE run_id = ${runId} AND seq > ${afterSeq}
          ORDER BY seq LIMIT ${limit}`.pipe(Effect.flatMap(events), Effect.mapError(fail("eventsAfter"))),

    eventsBefore: (runId, beforeSeq, limit) =>
      sql`SELECT seq, type, at, data FROM run_events WHERE run_id = ${runId} AND seq < ${beforeSeq}
          ORDER BY seq DESC LIMIT ${limit}`.pipe(Effect.flatMap(events), Effect.mapError(fail("eventsBefore"))),

    outputSlice: (runId, from, to, total) =>
      // Chunks come back as bytes (no re-encoding); a chunk never exceeds OUTPUT_CHUNK_BYTES, which
      // bounds the range scan on the primary key.
      sql`SELECT start_byte, ${dialect.textAsBytes("text")} AS bytes FROM run_output
          WHERE run_id = ${runId} AND start_byte > ${from - OUTPUT_CHUNK_BYTES} AND start_byte < ${to} AND end_byte > ${from}
          ORDER BY start_byte`.pipe(
        Effect.flatMap(decodeChunks),
        Effect.map((rows) => ({
          base: rows[0]?.start_byte ?? 0,
          bytes: rows.length === 1 ? rows[0]!.bytes : Buffer.concat(rows.map((r) => r.bytes)),
          total
        })),
        Effect.mapError(fail("outputSlice"))
      ),

    output: (runId) => readOutput(runId).pipe(Effect.mapError(fail("output"))),

    sweep: (endedBefore) =>
      Effect.gen(function* () {
        const doomed = sql`SELECT run_id FROM runs WHERE ended_at IS NOT NULL AND ended_at < ${endedBefore}`
        yield* sql`DELETE FROM run_events WHERE run_id IN (${doomed})`
        yield* sql`DELETE FROM run_output WHERE run_id IN (${doomed})`
        const gone = yield* sql`SELECT count(*) AS n FROM runs WHERE ended_at IS NOT NULL AND ended_at < ${endedBefore}`.pipe(Effect.flatMap(count))
        yield* sql`DELETE FROM runs WHERE ended_at IS NOT NULL AND ended_at < ${endedBefore}`
        return gone
      }).pipe(inTransaction, Effect.mapError(fail("sweep")))
  }
  return shape
})

/** The ledger over the SqlClient in context (migrated by `DbLive` / `DbMemory`). */
export const LedgerLive = Layer.effect(Ledger, makeLedgerSql)
