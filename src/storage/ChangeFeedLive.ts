/**
 * The process's change feed over its `SqlClient`, the driver picked by the client's dialect. A
 * constant layer, so that every layer providing it within one build shares one feed (one poll, or
 * one listening connection).
 *
 * SQLite: `sqlite/ChangeFeedSqlite.ts` (`data_version`). PostgreSQL: `pg/ChangeFeedPg.ts` (`LISTEN`
 * on `agent_bridge_<topic>`, fed by migration 0008's triggers); it needs the pool's `PgClient`,
 * which `DbPostgres` provides with the `SqlClient` (one object). Any other dialect is refused
 * rather than silently miss other processes' changes.
 */
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Option } from "effect"
import type { ChangeFeed } from "./ChangeFeed.ts"
import { ChangeFeedPg } from "./pg/ChangeFeedPg.ts"
import { ChangeFeedSqlite } from "./sqlite/ChangeFeedSqlite.ts"

const noDriver = Layer.die(`the change feed has no driver for this database dialect`)

export const ChangeFeedLive: Layer.Layer<ChangeFeed, never, SqlClient.SqlClient> = Layer.unwrapEffect(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const pgClient = yield* Effect.serviceOption(PgClient.PgClient)
    return sql.onDialectOrElse({
      sqlite: () => ChangeFeedSqlite(),
      pg: () => (Option.isSome(pgClient) ? Layer.provide(ChangeFeedPg, Layer.succeed(PgClient.PgClient, pgClient.value)) : noDriver),
      orElse: () => noDriver
    })
  })
)
