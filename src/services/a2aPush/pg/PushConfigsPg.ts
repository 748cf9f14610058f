/** The push store on PostgreSQL (`pushDialect.ts`): a transaction-scoped advisory lock per client, a class of its own. */
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { PushDialect } from "../pushDialectShape.ts"

/** The first key of the push store's per-client lock (the second is the client's hash). */
const PUSH_CLIENT_LOCK = 0x70757368

export const pushConfigsPg = (sql: SqlClient.SqlClient): PushDialect => ({
  lockClient: (client) => Effect.asVoid(sql`SELECT pg_advisory_xact_lock(${PUSH_CLIENT_LOCK}, hashtext(${client}))`)
})
