/**
 * `sql.withTransaction` whose failures are the storage failures that caused them, as typed errors.
 *
 * `withTransaction` runs its ROLLBACK and COMMIT under `orDie`. Two common storage faults therefore
 * arrive as defects, not as `SqlError`s a caller can map to `bridge.store_unavailable`:
 * - after a statement fails with `SQLITE_FULL` (and similar), SQLite has already rolled back by
 *   itself, so the client's ROLLBACK dies with "cannot rollback - no transaction is active", hiding
 *   the disk-full error that caused it;
 * - in WAL mode pages reach the disk at COMMIT, so a full disk or a busy database often fails the
 *   COMMIT itself.
 * Here the body's own first failure stays the answer, and a COMMIT/ROLLBACK `SqlError` is a failure.
 * Nothing is written in either case (SQLite rolled back).
 */
import type { SqlClient } from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Cause, Effect, Option, Predicate } from "effect"

const isSqlError = (u: unknown): u is SqlError => Predicate.isTagged(u, "SqlError")

export const transactionKeepingCause =
  (sql: SqlClient) =>
  <A, E, R>(body: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
    Effect.suspend(() => {
      let first: { readonly error: E } | undefined
      const noted = body.pipe(Effect.tapError((error) => Effect.sync(() => void (first ??= { error }))))
      return sql.withTransaction(noted).pipe(
        Effect.catchAllCause((cause): Effect.Effect<never, E | SqlError> => {
          if (first !== undefined) {
            const original = first.error
            const onlyThat = Cause.isFailType(cause) && cause.error === original
            return (onlyThat ? Effect.void : Effect.logDebug("the rollback after a failed transaction failed too", cause)).pipe(
              Effect.zipRight(Effect.fail(original))
            )
          }
          const defect = Cause.dieOption(cause)
          if (Option.isSome(defect) && isSqlError(defect.value)) return Effect.fail(defect.value)
          return Effect.failCause(cause)
        })
      )
    })
