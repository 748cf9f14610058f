/**
 * The process's change feed over its `SqlClient`, the driver picked by the client's dialect. A
 * constant layer, so that every layer providing it within one build shares one feed (one poll, or
 * one listening connection).
 *
 * SQLite: `sqlite/ChangeFeedSqlite.ts` (`data_version`). PostgreSQL: `pg/ChangeFeedPg.ts` (`LISTEN`
 * on `agent_bridge_<topic>`, fed by migration 0008's triggers); it needs the pool's `PgClient`,
 * which `DbPostgres` provides with the `SqlClient` (one object); that side is loaded only on
 * PostgreSQL (`pg/pgLazy.ts`). Any other dialect is refused rather than silently miss other
 * processes' changes.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import type { ChangeFeed } from "./ChangeFeed.ts"
import { ChangeFeedSqlite } from "./sqlite/ChangeFeedSqlite.ts"

const noDriver = Layer.die(`the change feed has no driver for this database dialect`)

export const ChangeFeedLive: Layer.Layer<ChangeFeed, never, SqlClient.SqlClient> = Layer.unwrapEffect(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return sql.onDialectOrElse({
      sqlite: () => ChangeFeedSqlite(),
      pg: () =>
        Layer.unwrapEffect(
          Effect.promise(() => import("./pg/pgLazy.ts")).pipe(
            Effect.flatMap((m) => m.changeFeedPgInContext),
            Effect.map(Option.getOrElse(() => noDriver))
          )
        ),
      orElse: () => noDriver
    })
  })
)
