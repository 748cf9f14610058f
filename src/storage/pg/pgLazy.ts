/**
 * The parts of the storage layers that load node-postgres and `@effect/sql-pg`, in a module of their
 * own that `Db.ts` and `ChangeFeedLive.ts` reach with `import()`: a daemon on SQLite never evaluates
 * those packages (issue 28: about a tenth of a second of its start-up CPU, and their heap). The bundle
 * keeps them in the same file; esbuild evaluates a module imported this way only when it is asked for.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Option } from "effect"
import type { ChangeFeed } from "../ChangeFeed.ts"
import { ChangeFeedPg } from "./ChangeFeedPg.ts"
import { bridgePgTypes } from "./pgTypes.ts"

/** The pool `DbPostgres` opens, with the bridge's type parsers. */
export const pgClientLayer = (options: Omit<PgClient.PgClientConfig, "types">) => PgClient.layer({ ...options, types: bridgePgTypes })

/** The PostgreSQL change feed over the pool in context; none when the `SqlClient` is not `DbPostgres`'s. */
export const changeFeedPgInContext: Effect.Effect<Option.Option<Layer.Layer<ChangeFeed>>> = Effect.map(
  Effect.serviceOption(PgClient.PgClient),
  Option.map((client) => Layer.provide(ChangeFeedPg, Layer.succeed(PgClient.PgClient, client)))
)
