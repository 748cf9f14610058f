/**
 * The change feed: how this process learns that the database changed under it. One service per
 * process (one file watch, or one listening connection, not one per caller), topics for the owners
 * that care, and the same shape on every dialect:
 *
 * - **another process committed** (the CLI's `client revoke`, `inbox deny`, `runs stop`, or another
 *   daemon on the same database): the driver notices it at the database and tells every subscriber.
 *   SQLite (`sqlite/ChangeFeedSqlite.ts`): a look at its `data_version` when the database's files
 *   change (a file watch, a safety look every 30 s; a 500 ms poll where the folder cannot be watched); it moves
 *   only for other connections' commits and cannot tell tables apart, so such a change is reported
 *   on every topic (`topic: "*"`). PostgreSQL (`pg/ChangeFeedPg.ts`): one listening connection of
 *   its own that `LISTEN`s on the channel `agent_bridge_<topic>` of every topic, fed by triggers
 *   calling `pg_notify` (statement-level on `clients` → keys, `inbox` → inbox, `run_stop_requests`
 *   → stops and deletes from `mcp_sessions` → sessions; row-level on `runs` → runs, the run id as
 *   the key), which PostgreSQL delivers at commit: every writer is heard (the CLI, another daemon,
 *   psql by hand) without any of them announcing itself. A payload may carry a key.
 * - **this process changed X** (`notify`): wakes this process's subscribers of that topic at once.
 *   Other processes hear the commit itself through their driver, so `notify` never leaves the process.
 *
 * A change only says "something of this topic may have changed": a subscriber reads what it needs
 * again. A spurious one (a commit to another table, a rolled-back write, this process's own echo)
 * costs one read. Each topic's hub is bounded and sliding: a subscriber that falls behind loses old changes,
 * never the newest, which is all a "read again" signal needs.
 */
import { Context, Effect, Layer, PubSub, type Scope, Stream } from "effect"

/** What changed: the owners that watch for other processes' writes. */
export type Topic = "keys" | "inbox" | "stops" | "runs" | "sessions"
export const TOPICS: ReadonlyArray<Topic> = ["keys", "inbox", "stops", "runs", "sessions"]

export interface Change {
  /** `"*"`: the driver cannot tell which (SQLite's `data_version`); every topic's subscribers get it. */
  readonly topic: Topic | "*"
  /** `local`: this process's `notify`; `other`: another connection's commit, seen by the driver. */
  readonly origin: "local" | "other"
  /** What changed within the topic, when the driver knows (a run id from a NOTIFY payload). */
  readonly key?: string
}

export interface ChangeFeedShape {
  /**
   * Subscribes to `topic` now: every change from the moment this returns is in the stream, which
   * reads the subscription until the scope closes. Use it where a change between subscribing and
   * reading must not be missed (Auth remembers keys only once it is subscribed).
   */
  readonly subscribe: (topic: Topic) => Effect.Effect<Stream.Stream<Change>, never, Scope.Scope>
  /** `subscribe` as a stream (subscribed when the stream starts). */
  readonly changes: (topic: Topic) => Stream.Stream<Change>
  /** This process changed `topic`: wakes its subscribers here (other processes see the commit). */
  readonly notify: (topic: Topic, key?: string) => Effect.Effect<void>
  /**
   * Looks for other processes' commits now instead of at the next tick, telling subscribers as the
   * poll would; true when it found one. A pushing driver (PostgreSQL) answers whether a change
   * arrived since the previous `check`.
   */
  readonly check: Effect.Effect<boolean>
}

export class ChangeFeed extends Context.Tag("agent-bridge/ChangeFeed")<ChangeFeed, ChangeFeedShape>() {}

/** Changes a slow subscriber may have unread before the oldest go (a change is only "read again"). */
export const HUB_CAPACITY = 64

/**
 * The dialect-free part every driver shares: a bounded hub per topic and the local `notify`. A
 * driver adds how it notices other processes and its `check`. One hub per topic, not one filtered
 * after the queue: a slow subscriber of one topic loses only that topic's older changes, never its
 * newest to a burst on another topic. A change of every topic (`"*"`) goes to every hub.
 */
export const makeFeedHub = Effect.gen(function* () {
  const hubs = new Map<Topic, PubSub.PubSub<Change>>()
  for (const topic of TOPICS) hubs.set(topic, yield* PubSub.sliding<Change>(HUB_CAPACITY))
  const hubOf = (topic: Topic) => hubs.get(topic)!
  const subscribe = (topic: Topic) => Effect.map(PubSub.subscribe(hubOf(topic)), (queue) => Stream.fromQueue(queue))
  return {
    subscribe,
    changes: (topic: Topic) => Stream.unwrapScoped(subscribe(topic)),
    publish: (change: Change) =>
      change.topic === "*" ? Effect.forEach(TOPICS, (t) => PubSub.publish(hubOf(t), change), { discard: true }) : Effect.asVoid(PubSub.publish(hubOf(change.topic), change))
  }
})

/** The double's handle: "another process committed", by hand. */
export interface ChangeFeedBumpShape {
  /** Tells subscribers of `topic` (every topic when absent) that another process committed. */
  readonly otherCommitted: (topic?: Topic, key?: string) => Effect.Effect<void>
}

export class ChangeFeedBump extends Context.Tag("agent-bridge/ChangeFeedBump")<ChangeFeedBump, ChangeFeedBumpShape>() {}

/**
 * The test double: the real hub with no database behind it. Other processes' commits are what the
 * test says (`ChangeFeedBump.otherCommitted`); `check` answers whether one came since the last check.
 */
export const ChangeFeedTest: Layer.Layer<ChangeFeed | ChangeFeedBump> = Layer.effectContext(
  Effect.gen(function* () {
    const hub = yield* makeFeedHub
    let unchecked = false
    const feed: ChangeFeedShape = {
      subscribe: hub.subscribe,
      changes: hub.changes,
      notify: (topic, key) => hub.publish(key === undefined ? { topic, origin: "local" } : { topic, origin: "local", key }),
      check: Effect.sync(() => {
        const found = unchecked
        unchecked = false
        return found
      })
    }
    const bump: ChangeFeedBumpShape = {
      otherCommitted: (topic, key) =>
        Effect.suspend(() => {
          unchecked = true
          return hub.publish({ topic: topic ?? "*", origin: "other", ...(key === undefined ? {} : { key }) })
        })
    }
    return Context.make(ChangeFeed, feed).pipe(Context.add(ChangeFeedBump, bump))
  })
)
