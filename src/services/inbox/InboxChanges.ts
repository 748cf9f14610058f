/**
 * The inbox's change feed: a version counter that moves after every write of the inbox table, so
 * whoever shows the rows (the `/inbox` page's event stream) reads them again only when they changed.
 *
 * - `InboxStoreLive` bumps it after each write that changed a row (insert, close, retention).
 * - `agent-bridge inbox approve|deny` writes the same database from another process, which this
 *   process's writes never see. `watchOtherConnections` moves the counter whenever the process's
 *   `ChangeFeed` reports another process's commit on topic `inbox` (SQLite: its `data_version`
 *   moved, looked at every 500 ms). The daemon runs it (`TeachServices`); the CLI does not need it.
 *
 * A bump only says "something may have changed": a spurious one (another process writing the
 * `clients` table, a transaction rolled back) costs one read of the rows, nothing more.
 */
import { Context, Effect, Layer, Stream, SubscriptionRef } from "effect"
import { ChangeFeed } from "../../storage/ChangeFeed.ts"

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

/**
 * One look for other processes' commits now (the feed's `check`): bumps the counter and answers
 * true when another connection committed since the feed's previous look.
 */
export const makeOtherConnectionsCheck = Effect.gen(function* () {
  const feed = yield* ChangeFeed
  const changes = yield* InboxChanges
  return Effect.tap(feed.check, (moved) => (moved ? changes.bump : Effect.void))
})

/**
 * The watcher, in the layer's scope: subscribed while the layer is built (no commit the feed
 * notices afterwards is missed), it bumps the counter on each other process's change.
 */
export const watchOtherConnections = () =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const feed = yield* ChangeFeed
      const changes = yield* InboxChanges
      const subscribed = yield* feed.subscribe("inbox")
      yield* subscribed.pipe(
        Stream.filter((c) => c.origin === "other"),
        Stream.runForEach(() => changes.bump),
        Effect.forkScoped
      )
    })
  )
