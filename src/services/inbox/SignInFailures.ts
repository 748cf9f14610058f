/**
 * The owner of `inbox_sign_in_failures` (migration 0012): the inbox sign-in limit's count of wrong
 * keys per client address, in the database so that the limit holds for the whole fleet of replicas
 * on one database, not per process (issue 37 item 6). Only storage: the rule (how many failures in
 * which window lock an address) is `edge/inbox/signInLimit.ts`'s, handed in as a pure step.
 *
 * One attempt is one transaction that first takes the address's row (an upsert, which on PostgreSQL
 * holds the row's lock until commit, and on SQLite takes the database's write lock), then reads its
 * failures, applies the step and writes the result: two replicas charging one address at once are
 * serialized, so parallel guesses cannot all pass the gate before any failure is counted. Portable
 * SQL only (`INSERT … ON CONFLICT … DO UPDATE … RETURNING`: SQLite 3.35+ and PostgreSQL).
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, Layer, Schema } from "effect"
import type { ParseError } from "effect/ParseResult"
import { AppConfig } from "../../config/AppConfig.ts"
import { databasePlace } from "../../storage/Db.ts"
import { transactionKeepingCause } from "../../storage/transaction.ts"
import { failedAt, type StoreFailure } from "./InboxStore.ts"

/** One step of an address's failures: its answer, and the failure times to keep (null: leave the row as it is). */
export type FailureStep<A> = (failures: ReadonlyArray<number>) => readonly [A, ReadonlyArray<number> | null]

export interface SignInFailuresShape {
  /** Runs `step` over the failure times of `address` (oldest first) under its row's lock and writes what it answers. */
  readonly update: <A>(address: string, now: number, step: FailureStep<A>) => Effect.Effect<A, StoreFailure>
  /** Forgets the address (it signed in). */
  readonly forget: (address: string) => Effect.Effect<void, StoreFailure>
  /** Keeps the `max` addresses whose last failure is newest, `keep` always among them; answers how many went. */
  readonly trim: (keep: string, max: number) => Effect.Effect<number, StoreFailure>
  /** Deletes the addresses whose last failure is at or before `before`; answers how many went (the retention sweep). */
  readonly expire: (before: number) => Effect.Effect<number, StoreFailure>
  /** How many addresses are remembered. */
  readonly size: Effect.Effect<number, StoreFailure>
}

export class SignInFailures extends Context.Tag("agent-bridge/inbox/SignInFailures")<SignInFailures, SignInFailuresShape>() {}

const decodeFailures = Schema.decodeUnknown(
  Schema.Array(Schema.Struct({ failures: Schema.parseJson(Schema.Array(Schema.Number)) }))
)
const decodeCount = Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: Schema.Union(Schema.Int, Schema.NumberFromString) })))

/** Rows deleted at most by one trim (the table never holds many more than its bound). */
const TRIM_BATCH = 10_000

export const makeSignInFailures: Effect.Effect<SignInFailuresShape, never, SqlClient.SqlClient | AppConfig> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const inTransaction = transactionKeepingCause(sql)
  const failed = failedAt(databasePlace(yield* AppConfig))
  const mapped = <A>(what: string) => (q: Effect.Effect<A, SqlError | ParseError>) =>
    q.pipe(Effect.catchTags({ SqlError: failed(what), ParseError: failed(what) }))
  const update = <A>(address: string, now: number, step: FailureStep<A>) =>
    inTransaction(
      Effect.gen(function* () {
        // The write first: it takes the row (and its lock) before anything is read.
        const held = yield* sql`INSERT INTO inbox_sign_in_failures (address, failures, last_failure_at) VALUES (${address}, '[]', ${now})
          ON CONFLICT (address) DO UPDATE SET address = excluded.address RETURNING failures`.pipe(Effect.flatMap(decodeFailures))
        const [answer, next] = step(held[0]?.failures ?? [])
        if (next !== null) {
          yield* sql`UPDATE inbox_sign_in_failures SET failures = ${JSON.stringify(next)}, last_failure_at = ${Math.max(0, ...next)}
            WHERE address = ${address}`
        }
        return answer
      })
    ).pipe(mapped("count a sign-in attempt"))
  return {
    update,
    forget: (address) => sql`DELETE FROM inbox_sign_in_failures WHERE address = ${address}`.pipe(Effect.asVoid, mapped("forget a sign-in address")),
    trim: (keep, max) =>
      sql`DELETE FROM inbox_sign_in_failures WHERE address <> ${keep} AND address IN (
        SELECT address FROM inbox_sign_in_failures WHERE address <> ${keep}
        ORDER BY last_failure_at DESC, address LIMIT ${TRIM_BATCH} OFFSET ${Math.max(0, max - 1)}) RETURNING address`.pipe(
        Effect.map((rows) => rows.length),
        mapped("bound the sign-in addresses")
      ),
    expire: (before) =>
      sql`DELETE FROM inbox_sign_in_failures WHERE last_failure_at <= ${before} RETURNING address`.pipe(
        Effect.map((rows) => rows.length),
        mapped("delete old sign-in failures")
      ),
    size: sql`SELECT count(*) AS n FROM inbox_sign_in_failures`.pipe(
      Effect.flatMap(decodeCount),
      Effect.map((rows) => rows[0]?.n ?? 0),
      mapped("count sign-in addresses")
    )
  }
})

/** The sign-in failures over the `SqlClient` in context. */
export const SignInFailuresLive = Layer.effect(SignInFailures, makeSignInFailures)
