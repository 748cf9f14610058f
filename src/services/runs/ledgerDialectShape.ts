/** The shape of a ledger dialect driver (`ledgerDialect.ts` picks one): a leaf, so the drivers and the picker do not import each other. */
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import type { Effect } from "effect"

export interface LedgerDialect {
  /** True when `e` is the (profile, idempotency key) unique index refusing a second row. */
  readonly isUniqueViolation: (e: SqlError) => boolean
  /** The order rows were inserted in, to break ties between equal `created_at` (of `table` when given). */
  readonly insertionOrder: (table?: string) => Fragment
  /** A text column read as its UTF-8 bytes (output windows are cut in bytes). */
  readonly textAsBytes: (column: string) => Fragment
  /**
   * What ends the SELECT that reads a run before a write in the same transaction, so that two
   * writers of one run take turns (each numbers its events from the seq it read).
   */
  readonly lockForWrite: Fragment
  /**
   * Inside an insert's transaction: holds the client's runs against other inserts until the commit,
   * so that two starts of one client (on two replicas) count the unfinished runs in turn.
   */
  readonly lockClient: (client: string) => Effect.Effect<void, SqlError>
  /**
   * Inside a queue claim's transaction: holds the profile's slots against other claims until the
   * commit, so that two replicas count the profile's live runs in turn and never admit past its capacity.
   */
  readonly lockProfile: (profile: string) => Effect.Effect<void, SqlError>
}
