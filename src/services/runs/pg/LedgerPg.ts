/**
 * What the ledger says differently on PostgreSQL: a unique-key violation is SQLSTATE 23505
 * (node-postgres puts it on the error's `code`), the insertion order that breaks ties between runs
 * created in the same millisecond is the `insert_seq` identity column (PostgreSQL has no rowid),
 * and the stored output's text is read back as its UTF-8 bytes with `convert_to`; a run read for a write is locked (`FOR UPDATE`),
 * and a client's inserts take turns on a transaction-scoped advisory lock (the cap is counted under it), as a profile's queue claims do on another.
 */
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { insertSeqOrder } from "../../../storage/pg/rowOrderPg.ts"
import { Effect } from "effect"
import type { LedgerDialect } from "../ledgerDialectShape.ts"

/**
 * The first key of the two-key advisory locks that hold a client's inserts (the second is the
 * client's name hashed). Two-key locks are a key space of their own, apart from the one-key locks
 * of the migrations and the cluster's shards; a hash collision only makes two clients take turns.
 */
const CLIENT_INSERT_LOCK = 0x61627263

/** The first key of the two-key advisory locks that hold a profile's queue claims (the second is the profile's name hashed). */
const PROFILE_CLAIM_LOCK = 0x61627271

/** PostgreSQL's `unique_violation`. */
const UNIQUE_VIOLATION = "23505"

export const ledgerPg = (sql: SqlClient.SqlClient): LedgerDialect => ({
  isUniqueViolation: (e: SqlError) => (e.cause as { code?: unknown } | undefined)?.code === UNIQUE_VIOLATION,
  insertionOrder: (table) => insertSeqOrder(sql, table),
  textAsBytes: (column) => sql.literal(`convert_to(${column}, 'UTF8')`),
  // The pool runs transactions side by side: the run's row is locked until the writer commits, so a
  // second writer reads the seq the first one left (READ COMMITTED re-reads the row after the wait).
  lockForWrite: sql.literal("FOR UPDATE"),
  // Released at the transaction's end; READ COMMITTED then lets the next holder's count see this
  // insert (each statement reads what was committed before it began).
  // A burst of one client's starts queues on this lock one short transaction at a time: the wait is
  // not a runaway statement, so this transaction lifts storage.statement_timeout_ms (SET LOCAL ends
  // with it) rather than fail the starts at the back of the queue as an outage.
  lockClient: (client) =>
    Effect.asVoid(Effect.zipRight(sql`SET LOCAL statement_timeout = 0`, sql`SELECT pg_advisory_xact_lock(${CLIENT_INSERT_LOCK}, hashtext(${client}))`)),
  // A queue claim counts the profile's live runs under this lock (READ COMMITTED: the next holder's
  // count sees the claim committed before it), so replicas never admit past the profile's capacity.
  lockProfile: (profile) =>
    Effect.asVoid(Effect.zipRight(sql`SET LOCAL statement_timeout = 0`, sql`SELECT pg_advisory_xact_lock(${PROFILE_CLAIM_LOCK}, hashtext(${profile}))`))
})
