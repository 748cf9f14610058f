/**
 * Where the push store's SQL differs by dialect, behind one interface: each dialect's driver in its
 * own folder (`sqlite/PushConfigsSqlite.ts`, `pg/PushConfigsPg.ts`), picked for the `SqlClient` the
 * store runs on. A dialect without a driver is refused when the store is built.
 */
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { pushConfigsPg } from "./pg/PushConfigsPg.ts"
import type { PushDialect } from "./pushDialectShape.ts"
import { pushConfigsSqlite } from "./sqlite/PushConfigsSqlite.ts"

export const pushDialect = (sql: SqlClient.SqlClient): Effect.Effect<PushDialect> =>
  sql.onDialectOrElse({
    sqlite: () => Effect.succeed(pushConfigsSqlite()),
    pg: () => Effect.succeed(pushConfigsPg(sql)),
    orElse: () => Effect.dieMessage("the push store has no driver for the configured database yet")
  })
