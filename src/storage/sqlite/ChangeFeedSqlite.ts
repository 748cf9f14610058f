/**
 * The change feed's SQLite driver: looks at `PRAGMA data_version` when the database's files change.
 * SQLite moves that number when another connection (another process: the CLI, a second daemon)
 * commits to the file, never for this connection's own writes, and it cannot say which table: a
 * move is published on every topic (`topic: "*"`).
 *
 * When to look, without a poll (issue 41: an idle daemon spends no CPU on it):
 *
 * - **the files changed**: one `fs.watch` (inotify) on the database's directory, for the database
 *   file and its `-wal` / `-journal` (another process's commit writes one of them). The first
 *   change looks at once; changes within `CHANGE_FEED_SPACING` after a look are gathered into one
 *   more look at its end, so a daemon writing hard (its own writes change the files too) looks at
 *   most twice a second, the pace the poll had.
 * - **a safety look** every `CHANGE_FEED_SAFETY` (30 s), for a change the watch could miss.
 * - **no watch possible** (the directory cannot be watched: inotify's limit, a file system without
 *   it): a warning is logged and the driver looks every `CHANGE_FEED_EVERY` (500 ms), as it did.
 * - **an in-memory database** (`:memory:`): no other process can write it; nothing is watched and
 *   nothing is timed (`check` still looks).
 *
 * The first look is taken while the layer is built, so a commit made after the layer is up is
 * never mistaken for the starting point. The watch and the looking fiber live in the layer's scope;
 * a failed look is logged and tried again at the next change or tick.
 */
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer, Option, Queue, Schema, type Scope } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ChangeFeed, type ChangeFeedShape, makeFeedHub } from "../ChangeFeed.ts"

/** The poll's pace when the files cannot be watched. */
export const CHANGE_FEED_EVERY = Duration.millis(500)
/** The least time between two looks prompted by file changes (a burst of writes is one more look). */
export const CHANGE_FEED_SPACING = Duration.millis(500)
/** A look even when no file change was seen. */
export const CHANGE_FEED_SAFETY = Duration.seconds(30)

const decodeDataVersion = Schema.decodeUnknown(Schema.Array(Schema.Struct({ data_version: Schema.Int })))
const decodeDatabaseList = Schema.decodeUnknown(Schema.Array(Schema.Struct({ name: Schema.String, file: Schema.String })))

/** Reads this connection's `data_version`. */
export const readDataVersion = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return Effect.flatMap(sql`PRAGMA data_version`, decodeDataVersion).pipe(Effect.map((rows) => rows[0]?.data_version ?? null))
})

/** The main database's file, `None` for an in-memory one. */
export const databaseFile = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* Effect.flatMap(sql`PRAGMA database_list`, decodeDatabaseList)
  const file = rows.find((r) => r.name === "main")?.file ?? ""
  return file === "" ? Option.none<string>() : Option.some(file)
})

/**
 * Something that calls `changed` when the files may have changed, until the scope closes; fails
 * when it cannot watch at all.
 */
export type FileWatch = (changed: () => void) => Effect.Effect<void, unknown, Scope.Scope>

/** Watches `file`'s directory for changes to `file`, `file-wal` and `file-journal`. */
export const watchDatabaseFiles = (file: string): FileWatch => (changed) =>
  Effect.acquireRelease(
    Effect.try(() => {
      const base = path.basename(file)
      const ours = new Set([base, `${base}-wal`, `${base}-journal`])
      const watcher = fs.watch(path.dirname(file), { persistent: false }, (_event, name) => {
        // No name (some platforms): any change may be ours.
        if (name === null || ours.has(String(name))) changed()
      })
      // An error after the start (the directory removed): a look at every safety tick remains.
      watcher.on("error", () => {})
      return watcher
    }),
    (w) => Effect.sync(() => w.close())
  )

export interface FeedWakes {
  /** How the driver hears of file changes; `None`: no other process can write (an in-memory database). */
  readonly watch: Option.Option<FileWatch>
  readonly spacing?: Duration.DurationInput
  readonly safety?: Duration.DurationInput
  /** The pace when `watch` fails. */
  readonly every?: Duration.DurationInput
}

/**
 * A feed over any "has another process committed since I last looked" reading: `read` answers a
 * number that moves only for other processes' commits; it is read when `wakes` say the files
 * changed. Serialised, so a look and `check` never run at once and compare against a stale start.
 */
export const makeWatchedFeed = <E>(read: Effect.Effect<number | null, E>, wakes: FeedWakes): Effect.Effect<ChangeFeedShape, never, Scope.Scope> =>
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
    if (Option.isSome(wakes.watch)) {
      // One pending change at most: changes during a look or its spacing are one look after it.
      const changed = yield* Queue.sliding<void>(1)
      const watching = yield* wakes.watch.value(() => void Queue.unsafeOffer(changed, undefined)).pipe(
        Effect.as(true),
        Effect.catchAll((e) => Effect.as(Effect.logWarning(`change feed: cannot watch the database's files; looking every ${Duration.format(wakes.every ?? CHANGE_FEED_EVERY)} instead`, e), false))
      )
      const spacing = wakes.spacing ?? CHANGE_FEED_SPACING
      const next = watching
        ? Effect.zipRight(Queue.take(changed).pipe(Effect.timeout(wakes.safety ?? CHANGE_FEED_SAFETY), Effect.ignore), logged).pipe(Effect.zipRight(Effect.sleep(spacing)))
        : Effect.zipRight(Effect.sleep(wakes.every ?? CHANGE_FEED_EVERY), logged)
      yield* Effect.forkScoped(Effect.forever(next))
    }
    return { subscribe: hub.subscribe, changes: hub.changes, notify: (topic, key) => hub.publish(key === undefined ? { topic, origin: "local" } : { topic, origin: "local", key }), check: logged }
  })

/** The driver as a layer over the migrated SqlClient. */
export const ChangeFeedSqlite = (options: Omit<FeedWakes, "watch"> = {}): Layer.Layer<ChangeFeed, never, SqlClient.SqlClient> =>
  Layer.scoped(
    ChangeFeed,
    Effect.gen(function* () {
      const read = yield* readDataVersion
      const file = yield* databaseFile.pipe(
        Effect.catchAll((e) => Effect.as(Effect.logWarning("change feed: cannot read the database's file name; looking every 500 ms", e), Option.some(""))),
        Effect.orDie
      )
      // "" (its name unreadable): a watch that always fails, so the driver polls.
      const watch = Option.map(file, (f): FileWatch => (f === "" ? () => Effect.fail("no file name") : watchDatabaseFiles(f)))
      return yield* makeWatchedFeed(read, { ...options, watch })
    })
  )
