/**
 * The owner of `a2a_push_configs` and `a2a_push_outbox` (migrations 0010, 0013): a client's webhooks per
 * task, and the durable outbox of notifications to send. Portable SQL only (both dialects take
 * it). The edge creates, reads and deletes configs (after the run service has shown the caller owns
 * the task); the push worker (`PushWorker.ts`) advances configs and drains the outbox.
 *
 * Durability: a config remembers the task state last enqueued for it (`last_state`). The worker
 * compares it with the run's current state and, in one transaction, moves `last_state` on (only
 * from the value it read) and inserts the outbox row, unique on (run, config, state): a pass that
 * runs twice, or after a restart, enqueues a state once, and a state reached while the daemon was
 * down is enqueued at the next start. A row leaves the outbox only when it was delivered or given up.
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Context, Data, Effect, Layer, Option, Redacted, Schema, Stream, SubscriptionRef } from "effect"
import type { ParseError } from "effect/ParseResult"
import type { QuotaExceeded } from "../../domain/errors.ts"
import { A2A_PUSH_CONFIGS_PER_TASK } from "../../domain/limits.ts"
import { quotaExceeded, quotaLimits } from "../quotas/ClientQuotas.ts"
import { pushDialect } from "./pushDialect.ts"
import { DbMemory } from "../../storage/Db.ts"
import { Flag, storedRow } from "../../storage/rows.ts"
import { transactionKeepingCause } from "../../storage/transaction.ts"

/**
 * A webhook of a task as stored, declared once: the Type is the config, the Encoded side its
 * `a2a_push_configs` columns (`storage/rows.ts` derives them, the decode and the INSERT and
 * UPDATE values; `id` is the `config_id` column).
 */
export const PushConfig = Schema.Struct({
  runId: Schema.String,
  id: Schema.String,
  client: Schema.String,
  url: Schema.String,
  /** Sent as `X-A2A-Notification-Token` and the HMAC key of the signature (the bridge makes one when the client gives none). */
  token: Schema.String,
  authScheme: Schema.String,
  authCredentials: Schema.String,
  /**
   * The Standard Webhooks signing secret (`whsec_<base64>`), "" for a config made before there
   * were any; Redacted so that no log line or printout of a config shows it.
   */
  signingSecret: Schema.Redacted(Schema.String),
  createdAt: Schema.Int,
  /** The task state last enqueued (`<state>@<seq>`), "" before the first. */
  lastState: Schema.String,
  finished: Flag
})
export interface PushConfig extends Schema.Schema.Type<typeof PushConfig> {}

/** A notification in the outbox as stored, declared once (its `a2a_push_outbox` columns derived likewise). */
export const Delivery = Schema.Struct({
  deliveryId: Schema.String,
  runId: Schema.String,
  configId: Schema.String,
  state: Schema.String,
  /** The run's event seq at the state: orders one task's notifications (created in one ms, say). */
  runSeq: Schema.Int,
  body: Schema.String,
  createdAt: Schema.Int,
  attempts: Schema.Int,
  nextAt: Schema.Int,
  doneAt: Schema.NullOr(Schema.Int),
  outcome: Schema.NullOr(Schema.String)
})
export interface Delivery extends Schema.Schema.Type<typeof Delivery> {}

/** A notification due, as the worker schedules it: whose it is and where it goes. */
export interface DueNotification {
  readonly deliveryId: string
  readonly runId: string
  /** The config's client ("" when the config is gone). */
  readonly client: string
  /** The config's webhook URL ("" when the config is gone). */
  readonly url: string
}

const DueRow = Schema.Struct({ delivery_id: Schema.String, run_id: Schema.String, client: Schema.String, url: Schema.String })
const decodeDue = Schema.decodeUnknown(Schema.Array(DueRow))

export class TooManyConfigs extends Data.TaggedError("TooManyConfigs")<{ readonly max: number }> {}

const configRows = storedRow(PushConfig, { id: "config_id" })
const deliveryRows = storedRow(Delivery)

/**
 * What a put gives: the config's fields but those the store fills (its time, and the state the
 * worker moves on), so a new column a put writes is here without a word. `signingSecret` is a new
 * secret; a config replaced keeps the one it has.
 */
export interface NewConfig extends Omit<PushConfig, "createdAt" | "lastState" | "finished"> {
  /** False when the bridge made the token; a retried request that replaces the config keeps the one made before. */
  readonly tokenGiven: boolean
}

type Op<A> = Effect.Effect<A, SqlError | ParseError>

export interface PushConfigsShape {
  /** Records a config, or replaces the one of that id on the task (its state stays); bounded per task. */
  /**
   * `QuotaExceeded` (nothing stored) when a new config would take its client past
   * `limits.push_configs_per_client` (over all its tasks); replacing a stored one is no new config.
   */
  readonly put: (config: NewConfig) => Effect.Effect<PushConfig, SqlError | ParseError | TooManyConfigs | QuotaExceeded>
  /**
   * `QuotaExceeded` when `client` holds all the push configs it may: checked before a message that
   * carries one starts its task, so a refused config starts nothing (`put` checks again).
   */
  readonly roomFor: (client: string) => Effect.Effect<void, SqlError | QuotaExceeded>
  readonly get: (runId: string, id: string) => Op<Option.Option<PushConfig>>
  readonly list: (runId: string) => Op<ReadonlyArray<PushConfig>>
  /** Deletes a config and its notifications not yet sent; true when there was one. */
  readonly remove: (runId: string, id: string) => Op<boolean>
  /** Configs whose task has not ended yet (or whose end is not yet enqueued), at most `limit`. */
  readonly active: (limit: number) => Op<ReadonlyArray<PushConfig>>
  /**
   * Moves the config from `from` to `to` and enqueues the notification, in one transaction; false
   * (nothing written) when the config is no longer at `from` (another pass got there first) or gone.
   */
  readonly advance: (config: PushConfig, from: string, to: string, finished: boolean, delivery: { readonly deliveryId: string; readonly runSeq: number; readonly body: string }) => Op<boolean>
  /**
   * The notifications due at `now` that may start (their body not read), fairly: at most
   * `perClient` of each client (the config's), leaving out `except` (those in flight); each
   * client's oldest first, then its second oldest, and so on; at most `limit`.
   */
  readonly dueFair: (now: number, options: { readonly perClient: number; readonly limit: number; readonly except: ReadonlyArray<string> }) => Op<ReadonlyArray<DueNotification>>
  /** One notification still pending, whole (its body too); `None` once delivered, given up or gone. */
  readonly delivery: (deliveryId: string) => Op<Option.Option<Delivery>>
  readonly outbox: (runId: string) => Op<ReadonlyArray<Delivery>>
  readonly delivered: (deliveryId: string, outcome: string) => Op<void>
  readonly retryAt: (deliveryId: string, attempts: number, nextAt: number, outcome: string) => Op<void>
  readonly giveUp: (deliveryId: string, attempts: number, outcome: string) => Op<void>
  /** Every run with a config or a notification kept. */
  readonly runIds: Op<ReadonlyArray<string>>
  /** Deletes the configs and notifications of these runs (the run is gone); answers how many configs went. */
  readonly forget: (runIds: ReadonlyArray<string>) => Effect.Effect<number, SqlError>
  /** The earliest time (ms) after `after` at which a notification not yet sent is due again (its backoff's end); none when no such one. */
  readonly nextDue: (after: number) => Op<Option.Option<number>>
  /** How many configs this process has put so far (a moving mark for `putSince`). */
  readonly puts: Effect.Effect<number>
  /** Waits (without polling) until this process puts a config after the mark `seen` of `puts`. */
  readonly putSince: (seen: number) => Effect.Effect<void>
}

export class PushConfigs extends Context.Tag("agent-bridge/a2aPush/PushConfigs")<PushConfigs, PushConfigsShape>() {}

export const makePushConfigs: Effect.Effect<PushConfigsShape, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const inTransaction = transactionKeepingCause(sql)
  const limits = yield* quotaLimits
  const dialect = yield* pushDialect(sql)
  // Moves with every put here: the idle worker waits on it instead of polling the tables.
  const putMark = yield* SubscriptionRef.make(0)
  const get = (runId: string, id: string) =>
    sql`SELECT * FROM a2a_push_configs WHERE run_id = ${runId} AND config_id = ${id}`.pipe(
      Effect.flatMap(configRows.decode),
      Effect.map((rows) => Option.fromNullable(rows[0]))
    )
  const roomFor = (client: string) =>
    Effect.gen(function* () {
      const held = Number((yield* sql<{ n: number }>`SELECT count(*) AS n FROM a2a_push_configs WHERE client = ${client}`)[0]?.n ?? 0)
      if (held >= limits.push_configs_per_client) {
        return yield* quotaExceeded("push_configs_per_client", limits.push_configs_per_client, `no more push configs (${held} stored over this client's tasks)`)
      }
    })
  const list = (runId: string) =>
    sql`SELECT * FROM a2a_push_configs WHERE run_id = ${runId} ORDER BY created_at, config_id`.pipe(
      Effect.flatMap(configRows.decode)
    )
  const shape: PushConfigsShape = {
    put: (c) =>
      inTransaction(Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        // The client's puts take turns: the bounds below are counted with nobody else's insert between.
        yield* dialect.lockClient(c.client)
        const existing = yield* get(c.runId, c.id)
        if (Option.isSome(existing)) {
          const token = c.tokenGiven ? c.token : existing.value.token
          const signingSecret = Redacted.value(existing.value.signingSecret) === "" ? c.signingSecret : existing.value.signingSecret
          const set = yield* configRows.changed(existing.value, {
            ...existing.value, url: c.url, token, authScheme: c.authScheme, authCredentials: c.authCredentials, signingSecret
          }, ["url"]) // (at least one column: a put that changes nothing is still an UPDATE)
          yield* sql`UPDATE a2a_push_configs SET ${sql.update(set)} WHERE run_id = ${c.runId} AND config_id = ${c.id}`
        } else {
          const count = yield* sql<{ n: number }>`SELECT count(*) AS n FROM a2a_push_configs WHERE run_id = ${c.runId}`
          if (Number(count[0]?.n ?? 0) >= A2A_PUSH_CONFIGS_PER_TASK) return yield* new TooManyConfigs({ max: A2A_PUSH_CONFIGS_PER_TASK })
          yield* roomFor(c.client)
          const row = yield* configRows.encode({ ...c, createdAt: now, lastState: "", finished: false })
          yield* sql`INSERT INTO a2a_push_configs ${sql.insert(row)}`
        }
        const stored = yield* get(c.runId, c.id)
        if (Option.isNone(stored)) return yield* Effect.dieMessage(`push config ${c.id} was written but cannot be read back`)
        return stored.value
      })).pipe(Effect.tap(() => SubscriptionRef.update(putMark, (n) => n + 1))),
    roomFor,
    get,
    list,
    remove: (runId, id) =>
      inTransaction(Effect.gen(function* () {
        yield* sql`DELETE FROM a2a_push_outbox WHERE run_id = ${runId} AND config_id = ${id} AND done_at IS NULL`
        const gone = yield* sql`DELETE FROM a2a_push_configs WHERE run_id = ${runId} AND config_id = ${id} RETURNING config_id`
        return gone.length > 0
      })),
    active: (limit) =>
      sql`SELECT * FROM a2a_push_configs WHERE finished = 0 ORDER BY created_at LIMIT ${limit}`.pipe(
        Effect.flatMap(configRows.decode)
      ),
    advance: (config, from, to, finished, delivery) =>
      inTransaction(Effect.gen(function* () {
        const moved = yield* sql`UPDATE a2a_push_configs SET last_state = ${to}, finished = ${finished ? 1 : 0}
          WHERE run_id = ${config.runId} AND config_id = ${config.id} AND last_state = ${from} RETURNING config_id`
        if (moved.length === 0) return false
        const now = yield* Clock.currentTimeMillis
        const row = yield* deliveryRows.encode({
          ...delivery, runId: config.runId, configId: config.id, state: to, createdAt: now, attempts: 0, nextAt: now, doneAt: null, outcome: null
        })
        yield* sql`INSERT INTO a2a_push_outbox ${sql.insert(row)} ON CONFLICT (run_id, config_id, state) DO NOTHING`
        return true
      })),
    dueFair: (now, { perClient, limit, except }) =>
      sql`SELECT delivery_id, run_id, client, url FROM (
          SELECT o.delivery_id, o.run_id, COALESCE(c.client, '') AS client, COALESCE(c.url, '') AS url, o.next_at, o.created_at, o.run_seq,
            ROW_NUMBER() OVER (PARTITION BY COALESCE(c.client, '') ORDER BY o.next_at, o.created_at, o.run_seq) AS turn
          FROM a2a_push_outbox o LEFT JOIN a2a_push_configs c ON c.run_id = o.run_id AND c.config_id = o.config_id
          WHERE o.done_at IS NULL AND o.next_at <= ${now} AND ${except.length === 0 ? sql`1 = 1` : sql`NOT (o.delivery_id IN ${sql.in(except)})`}
        ) due WHERE turn <= ${perClient} ORDER BY turn, next_at, created_at, run_seq LIMIT ${limit}`.pipe(
        Effect.flatMap(decodeDue),
        Effect.map((rows) => rows.map((r) => ({ deliveryId: r.delivery_id, runId: r.run_id, client: r.client, url: r.url })))
      ),
    delivery: (deliveryId) =>
      sql`SELECT * FROM a2a_push_outbox WHERE delivery_id = ${deliveryId} AND done_at IS NULL`.pipe(
        Effect.flatMap(deliveryRows.decode),
        Effect.map((rows) => Option.fromNullable(rows[0]))
      ),
    outbox: (runId) =>
      sql`SELECT * FROM a2a_push_outbox WHERE run_id = ${runId} ORDER BY created_at, run_seq`.pipe(
        Effect.flatMap(deliveryRows.decode)
      ),
    delivered: (deliveryId, outcome) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        sql`UPDATE a2a_push_outbox SET done_at = ${now}, attempts = attempts + 1, outcome = ${outcome} WHERE delivery_id = ${deliveryId}`
      ).pipe(Effect.asVoid),
    retryAt: (deliveryId, attempts, nextAt, outcome) =>
      sql`UPDATE a2a_push_outbox SET attempts = ${attempts}, next_at = ${nextAt}, outcome = ${outcome} WHERE delivery_id = ${deliveryId}`.pipe(Effect.asVoid),
    giveUp: (deliveryId, attempts, outcome) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        sql`UPDATE a2a_push_outbox SET done_at = ${now}, attempts = ${attempts}, outcome = ${`gave up: ${outcome}`} WHERE delivery_id = ${deliveryId}`
      ).pipe(Effect.asVoid),
    runIds: sql`SELECT run_id FROM a2a_push_configs UNION SELECT run_id FROM a2a_push_outbox`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ run_id: Schema.String })))),
      Effect.map((rows) => rows.map((r) => r.run_id))
    ),
    forget: (runIds) =>
      runIds.length === 0
        ? Effect.succeed(0)
        : inTransaction(Effect.gen(function* () {
          yield* sql`DELETE FROM a2a_push_outbox WHERE ${sql.in("run_id", runIds)}`
          const gone = yield* sql`DELETE FROM a2a_push_configs WHERE ${sql.in("run_id", runIds)} RETURNING config_id`
          return gone.length
        })),
    nextDue: (after) =>
      sql<{ at: number | null }>`SELECT min(next_at) AS at FROM a2a_push_outbox WHERE done_at IS NULL AND next_at > ${after}`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ at: Schema.NullOr(Schema.Number) })))),
        Effect.map((rows) => Option.fromNullable(rows[0]?.at ?? null).pipe(Option.map(Number)))
      ),
    puts: SubscriptionRef.get(putMark),
    putSince: (seen) => putMark.changes.pipe(Stream.filter((n) => n !== seen), Stream.runHead, Effect.asVoid)
  }
  return shape
})

/** The push configs and outbox over the `SqlClient` in context. */
export const PushConfigsLive = Layer.effect(PushConfigs, makePushConfigs)

/** `PushConfigsTest`: the real store over an in-memory database; records configs and notifications in its two tables. */
export const PushConfigsTest = PushConfigsLive.pipe(Layer.provide(DbMemory))
