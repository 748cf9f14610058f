/** The shape of a full-text index driver (`memoryIndex.ts` picks one): a leaf, so the drivers and the picker do not import each other. */
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import type { Effect } from "effect"
import type { FtsTerm } from "./ftsQuery.ts"

export interface MemoryIndex {
  /** Why this database cannot hold a note's text as it stands, or null when it can. */
  readonly refuses: (text: string) => string | null
  /** Indexes the note stored as `seq` (its text, and the tags the index holds). */
  readonly add: (seq: number | null, text: string, tags: string) => Effect.Effect<void, SqlError>
  readonly remove: (seq: number) => Effect.Effect<void, SqlError>
  /**
   * Inside a note's insert transaction: holds `client`'s notes against its other inserts until the
   * commit, so that two adds (on two replicas) count the client's notes against its quota in turn.
   */
  readonly lockClient: (client: string) => Effect.Effect<void, SqlError>
  /**
   * The notes of `namespaces` that match any of `terms` (`parseTerms`'s, at least one), best
   * first (ties newest first), at most `limit`: rows of `cols` (over `memory_notes n`) and `rank`,
   * lower is better.
   */
  readonly search: (cols: Fragment, terms: ReadonlyArray<FtsTerm>, namespaces: ReadonlyArray<string>, limit: number) => Effect.Effect<ReadonlyArray<unknown>, SqlError>
}
