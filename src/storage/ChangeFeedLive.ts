/**
 * The process's change feed over its `SqlClient`, the driver picked by the client's dialect. A
 * constant layer, so that every layer providing it within one build shares one feed (one poll).
 *
 * PostgreSQL's driver (`pg/ChangeFeedPg.ts`, issue 24) goes in the `pg` branch: `PgClient.listen`
 * on `agent_bridge_<topic>` for each topic (the channels the owners' triggers notify); until it exists a
 * PostgreSQL store refuses to start rather than silently miss other processes' changes.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import type { ChangeFeed } from "./ChangeFeed.ts"
import { ChangeFeedSqlite } from "./sqlite/ChangeFeedSqlite.ts"

export const ChangeFeedLive: Layer.Layer<ChangeFeed, never, SqlClient.SqlClient> = Layer.unwrapEffect(
  Effect.map(SqlClient.SqlClient, (sql) =>
    sql.onDialectOrElse({
      sqlite: () => ChangeFeedSqlite(),
      orElse: () => Layer.die(`the change feed has no driver for this database dialect yet (src/storage/pg/, issue 24)`)
    })
  )
)
