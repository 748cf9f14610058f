/**
 * The inbox table (migration 0003) as a repository. Only storage: the pending rules live in
 * `SkillProposals`, the decisions in `InboxLive`, the schedule of retention in `retention.ts`. Every
 * write that changes a row bumps `InboxChanges`, after its transaction commits. A storage fault
 * the operator can fix (full disk, read-only database, a PostgreSQL server that does not answer)
 * is `bridge.store_unavailable`, its sentence naming the database as the runs' does
 * (`databasePlace`: the SQLite file, or PostgreSQL's host:port/db, never the URL); any other
 * failure is `bridge.internal`, its cause logged under the incident.
 */
import { SqlClient, SqlError } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import type { ParseError } from "effect/ParseResult"
import { randomBytes } from "node:crypto"
import { AppConfig } from "../../config/AppConfig.ts"
import { Internal, StoreUnavailable } from "../../domain/errors.ts"
import { failWithIncident } from "../../common/incident.ts"
import { databasePlace } from "../../storage/Db.ts"
import { storageFaultMessage, storageFaultOf } from "../../storage/faults.ts"
import { insertionOrder } from "../../storage/rowOrder.ts"
import { afterCommit, transactionKeepingCause } from "../../storage/transaction.ts"
import type { InboxRow, InboxState } from "./Inbox.ts"
import { underDecisionLockPg } from "./pg/decisionLockPg.ts"
import { InboxChanges } from "./InboxChanges.ts"
import { epochMsColumn, toDb, toRows, withChoice } from "./rows.ts"

export interface StateChange {
  readonly state: InboxState
  readonly at: string
  readonly by: string | null
  /** Run approvals: the choice sent to Hermes. */
  readonly choice?: string | null
  /**
   * Also close a row a follower already closed as `expired` (no decider): the operator's answer
   * reached Hermes, and the follower only saw Hermes resolve it (or the run end) before this wrote.
   */
  readonly overFollowerExpiry?: boolean
}

export interface InboxStoreShape {
  readonly insert: (row: InboxRow) => Effect.Effect<void, StoreFailure>
  readonly get: (id: string) => Effect.Effect<Option.Option<InboxRow>, StoreFailure>
  /** Newest first; all states unless one is given. */
  readonly list: (state?: InboxState) => Effect.Effect<ReadonlyArray<InboxRow>, StoreFailure>
  /** Pending puts and deletes of skill `name`, oldest first. */
  readonly pendingForSkill: (name: string) => Effect.Effect<ReadonlyArray<InboxRow>, StoreFailure>
  /** How many skill changes `client` has pending. */
  readonly pendingCountFor: (client: string) => Effect.Effect<number, StoreFailure>
  /** How many rows of any kind are pending (`/metrics`). */
  readonly pendingCount: Effect.Effect<number, StoreFailure>
  /** Moves a row out of `pending`; false when it was not pending (someone decided it first). */
  readonly close: (id: string, change: StateChange) => Effect.Effect<boolean, StoreFailure>
  /**
   * The row of this run's request. A request without id (null) is the run's pending one that has
   * none: Hermes holds one approval at a time per run, so a replayed request finds its row.
   */
  readonly runApproval: (runId: string, requestId: string | null) => Effect.Effect<Option.Option<InboxRow>, StoreFailure>
  /** Pending run-approval rows of a run (or only the one for `requestId`), oldest first. */
  readonly pendingRunApprovals: (runId: string, requestId?: string) => Effect.Effect<ReadonlyArray<InboxRow>, StoreFailure>
  /** Deletes rows closed (decided, expired, withdrawn) before `decidedBefore` (ISO, as the rows show times); never a pending one. */
  readonly deleteHistory: (decidedBefore: string) => Effect.Effect<number, StoreFailure>
  /** Runs `effect` as one transaction. */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreFailure, R>
  /**
   * Runs `effect` while no other skill-row change runs (proposals, decisions), so a push cannot
   * withdraw a row while its approval is writing the skill.
   */
  readonly exclusive: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * Runs `effect` (a decision of row `id`) while no other process decides that row: on PostgreSQL
   * an advisory lock (`pg/decisionLockPg.ts`), since replicas and the CLI decide side by side; on
   * SQLite nothing more (the caller's own semaphore orders this process's decisions).
   */
  readonly decisionLock: <A, E, R>(id: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreFailure, R>
}

export class InboxStore extends Context.Tag("agent-bridge/InboxStore")<InboxStore, InboxStoreShape>() {}

export const newInboxId = () => `apr_${randomBytes(10).toString("hex")}`

/** A storage fault the operator can fix (full disk, read-only file) or any other failure. */
export type StoreFailure = Internal | StoreUnavailable

/** The store's failure handler; `place` is the database as people name it (`databasePlace`). */
export const failedAt = (place: string) => (what: string) => (cause: SqlError.SqlError | ParseError): Effect.Effect<never, StoreFailure> => {
  const fault = storageFaultOf(cause)
  if (fault !== null) {
    const message = storageFaultMessage(fault, `the inbox could not ${what}`, place)
    return Effect.logWarning(message).pipe(Effect.zipRight(Effect.fail(new StoreUnavailable({ message }))))
  }
  return failWithIncident(`inbox store: ${what} failed`, cause)
}

const decodeCounts = Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: Schema.Int })))
const decodeClosed = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: Schema.String, payload: Schema.String })))

export const InboxStoreLive = Layer.effect(
  InboxStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const changes = yield* InboxChanges
    const failed = failedAt(databasePlace(yield* AppConfig))
    const skillRows = yield* Effect.makeSemaphore(1)
    // Not `sql.withTransaction`: its ROLLBACK and COMMIT run under `orDie`, so a full disk (after which
    // SQLite has rolled back by itself) or a failed COMMIT would be a defect instead of `Internal`.
    const inTransaction = afterCommit(changes.bump, transactionKeepingCause(sql))
    const bump = inTransaction.bump
    const rows = (what: string, q: Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>) =>
      q.pipe(Effect.flatMap(toRows), Effect.catchTags({ SqlError: failed(what), ParseError: failed(what) }))
    const skillKinds = sql`kind IN ('skill_put', 'skill_delete')`

    const store: InboxStoreShape = {
      insert: (row) =>
        toDb(row).pipe(
          Effect.flatMap((columns) => sql`INSERT INTO inbox ${sql.insert({ ...columns })}`),
          Effect.zipRight(bump),
          Effect.catchTags({ SqlError: failed("insert a row"), ParseError: failed("insert a row") })
        ),
      get: (id) => Effect.map(rows("read a row", sql`SELECT * FROM inbox WHERE id = ${id}`), (rs) => Option.fromNullable(rs[0])),
      list: (state) =>
        rows(
          "list rows",
          state === undefined
            ? sql`SELECT * FROM inbox ORDER BY created_at DESC, ${insertionOrder(sql)} DESC`
            : sql`SELECT * FROM inbox WHERE state = ${state} ORDER BY created_at DESC, ${insertionOrder(sql)} DESC`
        ),
      pendingForSkill: (name) =>
        rows("read pending skill rows", sql`SELECT * FROM inbox WHERE state = 'pending' AND ${skillKinds} AND name = ${name} ORDER BY ${insertionOrder(sql)}`),
      pendingCountFor: (client) =>
        sql`SELECT count(*) AS n FROM inbox WHERE state = 'pending' AND ${skillKinds} AND client = ${client}`.pipe(
          Effect.flatMap(decodeCounts),
          Effect.map((rs) => rs[0]?.n ?? 0),
          Effect.catchTags({ SqlError: failed("count pending rows"), ParseError: failed("count pending rows") })
        ),
      pendingCount: sql`SELECT count(*) AS n FROM inbox WHERE state = 'pending'`.pipe(
        Effect.flatMap(decodeCounts),
        Effect.map((rs) => rs[0]?.n ?? 0),
        Effect.catchTags({ SqlError: failed("count pending rows"), ParseError: failed("count pending rows") })
      ),
      close: (id, change) =>
        Effect.gen(function* () {
          const at = yield* epochMsColumn(change.at)
          const closed = yield* sql`UPDATE inbox
            SET state = ${change.state}, decided_at = ${at}, decided_by = ${change.by}
            WHERE id = ${id} AND (state = 'pending' OR (${change.overFollowerExpiry === true ? 1 : 0} = 1
              AND kind = 'run_approval' AND state = 'expired' AND decided_by IS NULL)) RETURNING id, payload`.pipe(Effect.flatMap(decodeClosed))
          const row = closed[0]
          if (row === undefined) return false
          if (change.choice !== undefined) {
            yield* sql`UPDATE inbox SET payload = ${yield* withChoice(row.payload, change.choice)} WHERE id = ${id}`
          }
          return true
        }).pipe(
          inTransaction,
          Effect.tap((closed) => (closed ? bump : Effect.void)),
          Effect.catchTags({ SqlError: failed("close a row"), ParseError: failed("close a row") })
        ),
      runApproval: (runId, requestId) =>
        Effect.map(
          rows(
            "read a run approval",
            requestId === null
              ? sql`SELECT * FROM inbox WHERE kind = 'run_approval' AND run_id = ${runId} AND request_id IS NULL AND state = 'pending' ORDER BY ${insertionOrder(sql)}`
              : sql`SELECT * FROM inbox WHERE kind = 'run_approval' AND run_id = ${runId} AND request_id = ${requestId}`
          ),
          (rs) => Option.fromNullable(rs[0])
        ),
      pendingRunApprovals: (runId, requestId) =>
        rows(
          "read pending run approvals",
          requestId === undefined
            ? sql`SELECT * FROM inbox WHERE kind = 'run_approval' AND state = 'pending' AND run_id = ${runId} ORDER BY ${insertionOrder(sql)}`
            : sql`SELECT * FROM inbox WHERE kind = 'run_approval' AND state = 'pending' AND run_id = ${runId} AND request_id = ${requestId} ORDER BY ${insertionOrder(sql)}`
        ),
      deleteHistory: (decidedBefore) =>
        epochMsColumn(decidedBefore).pipe(
          // Same condition as the partial index of migration 0005, so SQLite uses it.
          Effect.flatMap((before) => sql`DELETE FROM inbox WHERE state <> 'pending' AND decided_at < ${before} RETURNING id`),
          Effect.map((rs) => rs.length),
          Effect.tap((n) => (n > 0 ? bump : Effect.void)),
          Effect.catchTags({ SqlError: failed("delete old history"), ParseError: failed("delete old history") })
        ),
      transaction: (effect) =>
        inTransaction(effect).pipe(
          Effect.catchIf((e): e is SqlError.SqlError => e instanceof SqlError.SqlError, (e) => failed("run a transaction")(e))
        ),
      exclusive: (effect) => skillRows.withPermits(1)(effect),
      decisionLock: (id, effect) =>
        sql.onDialectOrElse({
          pg: () => underDecisionLockPg(sql, id, effect).pipe(
            Effect.catchIf((e): e is SqlError.SqlError => e instanceof SqlError.SqlError, (e) => failed("hold a row for its decision")(e))
          ),
          orElse: () => effect
        })
    }
    return store
  })
)
