/** The push store on SQLite (`pushDialect.ts`): one connection writes at a time, so a count and its insert are never interleaved. */
import { Effect } from "effect"
import type { PushDialect } from "../pushDialectShape.ts"

export const pushConfigsSqlite = (): PushDialect => ({
  lockClient: () => Effect.void
})
