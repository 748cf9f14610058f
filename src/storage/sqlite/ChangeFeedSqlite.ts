/**
 * The change feed's SQLite driver: one look at `PRAGMA data_version` every `every` for the whole
 * process. SQLite moves that number when another connection (another process: the CLI, a second
 * daemon) commits to the file, never for this connection's own writes, and it cannot say which
 * table: a move is published on every topic (`topic: "*"`).
 *
 * The first look is taken while the layer is built, so a commit made after the layer is up is
 * never mistaken for the starting point. The poll fiber lives in the layer's scope (it stops when
 * the scope closes); a failed look is logged and tried again at the next tick.
 */
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer, Schedule, Schema, type Scope } from "effect"
import { ChangeFeed, type ChangeFeedShape, makeFeedHub } from "../ChangeFeed.ts"

/** How often the process looks: the pace the edge's key re-check had (the inbox's was 1 s). */
export const CHANGE_FEED_EVERY = Duration.millis(500)

const decodeDataVersion = Schema.decodeUnknown(Schema.Array(Schema.Struct({ data_version: Schema.Int })))

/** Reads this connection's `data_version`. */
export const readDataVersion = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return Effect.flatMap(sql`PRAGMA data_version`, decodeDataVersion).pipe(Effect.map((rows) => rows[0]?.data_version ?? null))
})

/**
 * A feed over any "has another process committed since I last looked" reading: `read` answers a
 * number that moves only for other processes' commits. Serialised, so the poll and `check` never
 * look at once and compare against a stale starting point.
 */
export const makePollingFeed = <E>(read: Effect.Effect<number | null, E>, every: Duration.DurationInput): Effect.Effect<ChangeFeedShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    const hub = yield* makeFeedHub
    const once = yield* Effect.makeSemaphore(1)
    let seen: number | null = null
    // A look failed before any succeeded: there is no starting point, so the first that succeeds
    // reports a change (another process may have committed meanwhile; a spurious one costs a read).
    let blind = false
    const look = once.withPermits(1)(
      Effect.gen(function* () {
        const now = yield* read
        const moved = now !== null && (seen === null ? blind : now !== seen)
        if (now !== null) {
          seen = now
          blind = false
        }
        if (moved) yield* hub.publish({ topic: "*", origin: "other" })
        return moved
      })
    )
    const logged = look.pipe(
      Effect.catchAll((e) =>
        Effect.sync(() => void (blind ||= seen === null)).pipe(Effect.zipRight(Effect.logWarning("change feed: looking for other writers failed", e)), Effect.as(false))
      )
    )
    yield* logged
    yield* logged.pipe(Effect.repeat(Schedule.spaced(every)), Effect.delay(every), Effect.forkScoped)
    return { subscribe: hub.subscribe, changes: hub.changes, notify: (topic, key) => hub.publish(key === undefined ? { topic, origin: "local" } : { topic, origin: "local", key }), check: logged }
  })

/** The driver as a layer over the migrated SqlClient. */
export const ChangeFeedSqlite = (every: Duration.DurationInput = CHANGE_FEED_EVERY): Layer.Layer<ChangeFeed, never, SqlClient.SqlClient> =>
  Layer.scoped(ChangeFeed, Effect.flatMap(readDataVersion, (read) => makePollingFeed(read, every)))
