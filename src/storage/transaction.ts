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
import { Cause, Effect, FiberRef, Option, Predicate, Ref } from "effect"

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

/** A transaction wrapper whose `bump` (a change notice) waits for the outermost transaction's end. */
export interface DeferringTransaction {
  <A, E, R>(body: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R>
  /** `notify` now outside a transaction; inside one, once for each call, after it has ended. */
  readonly bump: Effect.Effect<void>
}

/**
 * `inTransaction` whose change notices go out after COMMIT. Another connection sees a write only
 * once it is committed (PostgreSQL; SQLite's one connection serializes the reader behind it), so a
 * notice sent at the statement woke readers that read the old rows, found nothing new and waited
 * for a change that had already happened. After a rollback the notices still go: a spurious notice
 * costs a read, a lost one a stale page. Nested calls (savepoints) defer to the outermost.
 */
export const afterCommit = (
  notify: Effect.Effect<void>,
  inTransaction: <A, E, R>(body: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, R>
): DeferringTransaction => {
  // The open transaction's count of deferred notices, on the fiber that runs it (and its children).
  const pending = FiberRef.unsafeMake<Ref.Ref<number> | null>(null)
  const bump = Effect.flatMap(FiberRef.get(pending), (count) => (count === null ? notify : Ref.update(count, (n) => n + 1)))
  const wrapped = <A, E, R>(body: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
    Effect.flatMap(FiberRef.get(pending), (outer) =>
      outer !== null
        ? inTransaction(body)
        : Effect.flatMap(Ref.make(0), (count) =>
            inTransaction(Effect.locally(body, pending, count)).pipe(
              Effect.ensuring(Effect.flatMap(Ref.get(count), (n) => Effect.replicateEffect(notify, n, { discard: true })))
            )))
  return Object.assign(wrapped, { bump })
}
