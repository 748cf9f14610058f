/**
 * The inbox's cross-process decision lock on PostgreSQL: a session-level advisory lock keyed by the
 * row, held on one reserved connection of the pool while a decision runs (its Hermes call
 * included). Two operators deciding one row through two replicas, or a replica and the CLI, then
 * take turns: the second reads the row after the first closed it and is told it is decided, so
 * Hermes hears one answer. The lock goes with its session, so a process that dies mid-decision
 * frees it. Two-key advisory locks are a key space of their own (apart from the migrations' and
 * the cluster's one-key locks); a hash collision only makes two rows' decisions take turns.
 */
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"

/** The first key of the pair: "abri" as a 32-bit integer (the second is the row id hashed). */
const DECISION_LOCK_KEY = 0x61627269

export const underDecisionLockPg = <A, E, R>(sql: SqlClient.SqlClient, inboxId: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
  Effect.scoped(
    Effect.gen(function* () {
      const connection = yield* sql.reserve
      yield* Effect.acquireRelease(connection.executeRaw(`SELECT pg_advisory_lock(${DECISION_LOCK_KEY}, hashtext($1))`, [inboxId]), () =>
        // A failed unlock means a broken connection, whose session (and lock) is gone anyway.
        Effect.ignore(connection.executeRaw(`SELECT pg_advisory_unlock(${DECISION_LOCK_KEY}, hashtext($1))`, [inboxId]))
      )
      return yield* effect
    })
  )
