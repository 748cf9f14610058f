/** The shape of a push store dialect driver (`pushDialect.ts` picks one): a leaf, so the drivers and the picker do not import each other. */
import type { SqlError } from "@effect/sql/SqlError"
import type { Effect } from "effect"

export interface PushDialect {
  /**
   * Inside a config's insert transaction: holds `client`'s configs against its other inserts until
   * the commit, so that two puts (on two replicas) count against the per-task bound and the
   * client's quota in turn.
   */
  readonly lockClient: (client: string) => Effect.Effect<void, SqlError>
}
