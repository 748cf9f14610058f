/**
 * The few places where the ledger's SQL differs by dialect, behind one interface: each dialect's
 * driver answers them in its own folder (`sqlite/LedgerSqlite.ts`, `pg/LedgerPg.ts`), and the ledger picks the one
 * of the `SqlClient` it runs on (`sql.onDialectOrElse`). A dialect without a driver is refused when
 * the ledger is built, never at its first write.
 */
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { ledgerPg } from "./pg/LedgerPg.ts"
import { ledgerSqlite } from "./sqlite/LedgerSqlite.ts"
import type { LedgerDialect } from "./ledgerDialectShape.ts"

export type { LedgerDialect }


export const ledgerDialect = (sql: SqlClient.SqlClient): Effect.Effect<LedgerDialect> =>
  sql.onDialectOrElse({
    sqlite: () => Effect.succeed(ledgerSqlite(sql)),
    pg: () => Effect.succeed(ledgerPg(sql)),
    orElse: () => Effect.dieMessage("the run ledger has no driver for the configured database yet")
  })
