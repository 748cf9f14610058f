/**
 * The inbox's change feed: a version counter that moves after every write of the inbox table, so
 * whoever shows the rows (the `/inbox` page's event stream) reads them again only when they changed.
 *
 * - `InboxStoreLive` bumps it after each write that changed a row (insert, close, retention).
 * - `agent-bridge inbox approve|deny` writes the same SQLite file from another process, which this
 *   process's writes never see. `watchOtherConnections` notices those commits through SQLite's
 *   `PRAGMA data_version` (it changes only when another connection commits; one cheap read a second)
 *   and bumps the counter then. The daemon runs it (`TeachServices`); the CLI does not need it.
 *
 * A bump only says "something may have changed": a spurious one (another process writing the
 * `clients` table, a transaction rolled back) costs one read of the rows, nothing more.
 */
import { SqlClient } from "@effect/sql"
import { Context, Duration, Effect, Layer, Schedule, Schema, Stream, SubscriptionRef } from "effect"

export interface InboxChangesShape {
  /** Moves the version on: the rows may have changed. */
  readonly bump: Effect.Effect<void>
  /** The current version first, then each new one. */
  readonly changes: Stream.Stream<number>
}

export class InboxChanges extends Context.Tag("agent-bridge/InboxChanges")<InboxChanges, InboxChangesShape>() {}

export const InboxChangesLive = Layer.effect(
  InboxChanges,
  Effect.map(SubscriptionRef.make(0), (version) => ({
    bump: SubscriptionRef.update(version, (n) => n + 1),
    changes: version.changes
  }))
)

/** How often the daemon looks for commits made by another process (the CLI). */
export const OTHER_CONNECTIONS_EVERY = Duration.seconds(1)

/**
 * One look at `PRAGMA data_version`: bumps the feed and answers true when another connection
 * committed since the previous look. The first look only records the starting value.
 */
const decodeDataVersion = Schema.decodeUnknown(Schema.Array(Schema.Struct({ data_version: Schema.Int })))

export const makeOtherConnectionsCheck = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const changes = yield* InboxChanges
  let seen: number | null = null
  return Effect.gen(function* () {
    const rows = yield* Effect.flatMap(sql`PRAGMA data_version`, decodeDataVersion)
    const now = rows[0]?.data_version ?? null
    const moved = seen !== null && now !== seen
    seen = now
    if (moved) yield* changes.bump
    return moved
  })
})

/**
 * The watcher fiber, in the layer's scope: checks every `every` on Effect's Clock. A failed check
 * is logged and tried again at the next tick.
 */
export const watchOtherConnections = (every: Duration.DurationInput = OTHER_CONNECTIONS_EVERY) =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const check = yield* makeOtherConnectionsCheck
      yield* check.pipe(
        Effect.catchAll((e) => Effect.logWarning("inbox: looking for other writers failed", e).pipe(Effect.as(false))),
        Effect.repeat(Schedule.spaced(every)),
        Effect.forkScoped
      )
    })
  )
