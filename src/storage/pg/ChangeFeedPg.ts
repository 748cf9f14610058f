/**
 * The change feed's PostgreSQL driver: one listening connection for the whole process, `LISTEN`ing
 * on `agent_bridge_<topic>` for every topic, the channels the owners' triggers notify (migration
 * 0008: `clients` → keys, `inbox` → inbox, `run_stop_requests` → stops, `runs` → runs with the run
 * id as the key; migration 0011: deletes from `mcp_sessions` → sessions). PostgreSQL delivers a notification at commit, to every listening session: every
 * writer is heard (the CLI, another daemon, psql by hand). This process's own writes through its
 * pool are dropped by their origin (`origin.ts`: each session of the pool names it, the triggers
 * put it in the payload), as SQLite's `data_version` never shows them; `notify` tells this
 * process's subscribers of those.
 *
 * The connection is a `pg.Client` of its own, opened with the pool's settings, not
 * `PgClient.listen`: that one ignores its connection's errors and never ends its stream, so a
 * connection the server dropped (a restart, `pg_terminate_backend`, a network cut) would go
 * unheard and the feed would fall silent for good. Here a lost connection ends the session; the
 * driver opens a new one with a backoff (100 ms doubling, at most 5 s apart, for as long as the
 * layer lives) and, once it listens again, publishes a change on every topic: what was committed
 * during the gap is unknown, and a subscriber's read costs less than a missed revocation.
 *
 * `check` answers whether a change of another connection arrived since the previous `check`. It
 * first makes one round trip on the listening connection: the server sends a session's pending
 * notifications before the answer to its query, so a commit made before `check` was called is
 * counted. While there is no listening connection it answers true (the gap is unknown).
 */
import { PgClient } from "@effect/sql-pg"
import { Data, Deferred, Duration, Effect, Exit, Layer, Redacted, Runtime, Schedule, type Scope } from "effect"
import pg from "pg"
import { originOf, parsePayload } from "./origin.ts"
import { type Change, ChangeFeed, type ChangeFeedShape, makeFeedHub, type Topic, TOPICS } from "../ChangeFeed.ts"

/** The application name of the listening connection (`pg_stat_activity` tells it from the pool's). */
export const FEED_APPLICATION_NAME = "agent-bridge-feed"

/** The channel a topic's triggers notify. */
export const channelOf = (topic: Topic) => `agent_bridge_${topic}`

const topicOfChannel = new Map<string, Topic>(TOPICS.map((t) => [channelOf(t), t]))

/** A table-level trigger's payload: the topic changed, no key. */
const NO_KEY = "*"

/** How long one connection attempt, and `check`'s round trip, may take. */
const CONNECT_TIMEOUT = Duration.seconds(10)
const CHECK_TIMEOUT = Duration.seconds(2)

/** Between connection attempts: 100 ms doubling, never more than 5 s apart. */
export const RECONNECT_BACKOFF = Schedule.exponential("100 millis").pipe(Schedule.union(Schedule.spaced("5 seconds")))

/** The listening connection could not be opened, or was lost. */
export class FeedConnectionError extends Data.TaggedError("FeedConnectionError")<{ readonly reason: string }> {}

const reasonOf = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

/** `host:port/db` of the pool's config, for the log (never the URL: it may carry a password). */
const serverOf = (config: PgClient.PgClientConfig) => `${config.host ?? "localhost"}:${config.port ?? 5432}/${config.database ?? config.username ?? "postgres"}`

/** node-postgres's options for a connection like the pool's (the URL carries the statement timeout). */
const clientOptions = (config: PgClient.PgClientConfig): pg.ClientConfig => ({
  ...(config.url !== undefined
    ? { connectionString: Redacted.value(config.url) as string }
    : {
        host: config.host,
        port: config.port,
        database: config.database,
        user: config.username,
        ...(config.password !== undefined ? { password: Redacted.value(config.password) as string } : {})
      }),
  ...(config.ssl !== undefined ? { ssl: config.ssl } : {}),
  application_name: FEED_APPLICATION_NAME,
  connectionTimeoutMillis: Duration.toMillis(CONNECT_TIMEOUT)
})

interface Session {
  readonly client: pg.Client
  /** Fails when the connection is lost. */
  readonly lost: Effect.Effect<never, FeedConnectionError>
}

/** Opens the listening connection and `LISTEN`s on every topic; closed with the scope. */
const openSession = (options: pg.ClientConfig, onNotification: (msg: pg.Notification) => void): Effect.Effect<Session, FeedConnectionError, Scope.Scope> =>
  Effect.gen(function* () {
    const lost = yield* Deferred.make<never, FeedConnectionError>()
    const onLost = (cause?: unknown) =>
      Deferred.unsafeDone(lost, Exit.fail(new FeedConnectionError({ reason: cause === undefined ? "the server closed the connection" : reasonOf(cause) })))
    const client = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const c = new pg.Client(options)
        c.on("error", onLost)
        c.on("end", () => onLost())
        c.on("notification", onNotification)
        return c
      }),
      (c) =>
        Effect.promise(() => c.end().catch(() => undefined)).pipe(
          Effect.timeoutOption("1 second"),
          Effect.ensuring(Effect.sync(() => c.removeAllListeners()))
        )
    )
    yield* Effect.tryPromise({ try: () => client.connect(), catch: (cause) => new FeedConnectionError({ reason: reasonOf(cause) }) })
    for (const topic of TOPICS) {
      yield* Effect.tryPromise({
        try: () => client.query(`LISTEN ${pg.escapeIdentifier(channelOf(topic))}`),
        catch: (cause) => new FeedConnectionError({ reason: reasonOf(cause) })
      })
    }
    return { client, lost: Deferred.await(lost) }
  })

/** The feed over a PostgreSQL pool's config; the listening loop lives in the scope. */
export const makePgFeed = (config: PgClient.PgClientConfig): Effect.Effect<ChangeFeedShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    const hub = yield* makeFeedHub
    const runSync = Runtime.runSync(yield* Effect.runtime<never>())
    const options = clientOptions(config)
    const server = serverOf(config)
    const own = config.url === undefined ? undefined : originOf(Redacted.value(config.url) as string)
    let current: pg.Client | undefined
    let unchecked = false
    let sessions = 0
    let built = false
    const ready = yield* Deferred.make<void>()

    const onNotification = (msg: pg.Notification) => {
      const topic = topicOfChannel.get(msg.channel)
      if (topic === undefined) return
      const { origin, key } = parsePayload(msg.payload ?? NO_KEY)
      if (own !== undefined && origin === own) return
      unchecked = true
      const change: Change = key === NO_KEY || key === "" ? { topic, origin: "other" } : { topic, origin: "other", key }
      runSync(hub.publish(change))
    }

    const session = Effect.scoped(
      Effect.gen(function* () {
        const s = yield* openSession(options, onNotification).pipe(
          Effect.tapError((e) => Effect.logWarning(`change feed: cannot listen on PostgreSQL at ${server} (${e.reason}); trying again`)),
          Effect.retry(RECONNECT_BACKOFF)
        )
        current = s.client
        // A session after the first (or one that came up only after the layer was built, so
        // subscribers may exist and have missed writes): the gap is unknown, every topic changed.
        if (sessions++ > 0 || built) {
          unchecked = true
          yield* hub.publish({ topic: "*", origin: "other" })
          yield* Effect.logInfo(`change feed: listening on PostgreSQL at ${server} again`)
        }
        yield* Deferred.succeed(ready, undefined)
        yield* s.lost.pipe(
          Effect.ensuring(Effect.sync(() => void (current = undefined))),
          Effect.catchAll((e) => Effect.logWarning(`change feed: lost the listening connection to PostgreSQL at ${server} (${e.reason}); reconnecting`))
        )
      })
    )
    yield* session.pipe(Effect.forever, Effect.forkScoped)
    // The first session normally listens before the layer is up, so a commit after that is heard;
    // a server that does not answer in time does not hold the daemon: the first session then
    // reports a change on every topic when it comes.
    yield* Deferred.await(ready).pipe(Effect.timeoutOption(CONNECT_TIMEOUT))
    built = true

    const roundTrip = (client: pg.Client) =>
      Effect.tryPromise(() => client.query("SELECT 1")).pipe(Effect.timeout(CHECK_TIMEOUT), Effect.as(true), Effect.orElseSucceed(() => false))

    const check = Effect.gen(function* () {
      const client = current
      if (client === undefined || !(yield* roundTrip(client))) return true
      const found = unchecked
      unchecked = false
      return found
    })

    return {
      subscribe: hub.subscribe,
      changes: hub.changes,
      notify: (topic, key) => hub.publish(key === undefined ? { topic, origin: "local" } : { topic, origin: "local", key }),
      check
    }
  })

/** The driver as a layer over the pool's client. */
export const ChangeFeedPg: Layer.Layer<ChangeFeed, never, PgClient.PgClient> = Layer.scoped(
  ChangeFeed,
  Effect.flatMap(PgClient.PgClient, (client) => makePgFeed(client.config))
)
