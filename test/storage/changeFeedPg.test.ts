/**
 * The change feed on PostgreSQL (`src/storage/pg/ChangeFeedPg.ts`, migration 0008's triggers): a
 * commit by another connection (a second pool on the same database, as another process has) reaches
 * the subscribers of its table's topic only, `runs` with the run id as the key; this process's own
 * writes (their sessions' origin) reach nobody; a rolled-back write
 * reaches nobody; `notify` stays in the process; `check` answers whether a change came since the
 * previous one; and a listening connection the server terminates comes back by itself, reporting a
 * change on every topic. PostgreSQL project only (`test/vitest.pg.config.ts`).
 */
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Layer, ManagedRuntime, Option, Queue, Redacted } from "effect"
import { collect } from "../support/feedCollect.ts"
import { type Change, ChangeFeed, TOPICS } from "../../src/storage/ChangeFeed.ts"
import { ChangeFeedLive } from "../../src/storage/ChangeFeedLive.ts"
import { DbPostgres } from "../../src/storage/Db.ts"
import { FEED_APPLICATION_NAME } from "../../src/storage/pg/ChangeFeedPg.ts"
import { freshPgDatabase, TEST_DIALECT } from "../support/testDb.ts"

/** Long enough for a notification on a loaded machine; a test waits this only when it expects one. */
const ARRIVAL = Duration.seconds(20)

/** The feed over a fresh migrated database, and a second pool on it (another process's writes). */
const onFreshDatabase = Effect.gen(function* () {
  const url = yield* Effect.promise(freshPgDatabase)
  const other = yield* Effect.acquireRelease(
    Effect.sync(() => ManagedRuntime.make(PgClient.layer({ url: Redacted.make(url), maxConnections: 2 }))),
    (rt) => Effect.promise(() => rt.dispose())
  )
  const byOther = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
    Effect.promise(() => other.runPromise(Effect.flatMap(SqlClient.SqlClient, f)))
  const layer = ChangeFeedLive.pipe(Layer.provideMerge(DbPostgres({ url: Redacted.make(url), pool_max: 2, statement_timeout_ms: 30_000 }).pipe(Layer.orDie)))
  return { layer, byOther }
})


const collectAll = Effect.map(Effect.forEach(TOPICS, collect), (queues) => new Map(TOPICS.map((t, i) => [t, queues[i]!])))

const next = (queue: Queue.Queue<Change>) =>
  Queue.take(queue).pipe(
    Effect.timeoutFail({ duration: ARRIVAL, onTimeout: () => new Error("no change arrived") })
  )

const insertRun = (runId: string) => (sql: SqlClient.SqlClient) =>
  sql`INSERT INTO runs (run_id, client, agent, profile, hermes_run_id, status, input, fingerprint, created_at, updated_at)
      VALUES (${runId}, 'c', 'a', 'p', ${`h_${runId}`}, 'running', 'hi', 'f', 1, 1)`

describe.skipIf(TEST_DIALECT !== "pg")("the change feed on PostgreSQL", () => {
  it.live("another connection's commit reaches its topic's subscribers only; runs carry the run id", () =>
    Effect.gen(function* () {
      const { layer, byOther } = yield* onFreshDatabase
      yield* Effect.gen(function* () {
        const feed = yield* ChangeFeed
        const q = yield* collectAll
        yield* byOther((sql) => sql`INSERT INTO run_stop_requests (run_id, requested_by, via, requested_at) VALUES ('r1', 'operator', 'cli', 1)`)
        expect(yield* next(q.get("stops")!)).toEqual({ topic: "stops", origin: "other" })
        yield* byOther(insertRun("run_a"))
        expect(yield* next(q.get("runs")!)).toEqual({ topic: "runs", origin: "other", key: "run_a" })
        yield* byOther((sql) => sql`UPDATE runs SET status = 'completed' WHERE run_id = 'run_a'`)
        expect(yield* next(q.get("runs")!)).toEqual({ topic: "runs", origin: "other", key: "run_a" })
        yield* byOther((sql) => sql`INSERT INTO clients (name, key_digest, scopes, created_at) VALUES ('bob', 'd1', '[]', 1)`)
        expect(yield* next(q.get("keys")!)).toEqual({ topic: "keys", origin: "other" })
        // A write that is rolled back notifies nobody.
        yield* byOther((sql) =>
          sql.withTransaction(Effect.zipRight(sql`UPDATE clients SET revoked_at = 2 WHERE name = 'bob'`, Effect.fail("rolled back"))).pipe(Effect.ignore)
        )
        // check's round trip on the listening connection: everything committed before it has arrived.
        expect(yield* feed.check).toBe(true)
        expect(yield* feed.check).toBe(false)
        expect(yield* Queue.size(q.get("inbox")!)).toBe(0)
        expect(yield* Queue.size(q.get("keys")!)).toBe(0)
        expect(yield* Queue.size(q.get("stops")!)).toBe(0)
        expect(yield* Queue.size(q.get("runs")!)).toBe(0)
        yield* byOther((sql) => sql`DELETE FROM run_stop_requests`)
        expect(yield* feed.check).toBe(true)
        expect(yield* next(q.get("stops")!)).toEqual({ topic: "stops", origin: "other" })
        // MCP sessions (migration 0011): a new or touched session tells nobody, an ended one tells every replica.
        yield* byOther((sql) => sql`INSERT INTO mcp_sessions (session_id, client, server_kind, key_digest, protocol_version, client_info, capabilities, created_at, last_seen_at)
          VALUES ('s1', 'bob', 'agents', 'd1', '2025-11-25', '{}', '{}', 1, 1)`)
        yield* byOther((sql) => sql`UPDATE mcp_sessions SET last_seen_at = 2 WHERE session_id = 's1'`)
        expect(yield* feed.check).toBe(false)
        yield* byOther((sql) => sql`DELETE FROM mcp_sessions WHERE session_id = 's1'`)
        expect(yield* feed.check).toBe(true)
        expect(yield* next(q.get("sessions")!)).toEqual({ topic: "sessions", origin: "other" })
      }).pipe(Effect.provide(layer), Effect.scoped)
    }).pipe(Effect.scoped), 60_000)

  it.live("this process's own writes are not another's (their origin is this pool's), as on SQLite", () =>
    Effect.gen(function* () {
      const { layer, byOther } = yield* onFreshDatabase
      yield* Effect.gen(function* () {
        const feed = yield* ChangeFeed
        const sql = yield* SqlClient.SqlClient
        const q = yield* collectAll
        yield* insertRun("run_own")(sql)
        yield* sql`INSERT INTO run_stop_requests (run_id, requested_by, via, requested_at) VALUES ('run_own', 'operator', 'page', 1)`
        expect(yield* feed.check).toBe(false)
        // Another's write after them is the first change anybody hears.
        yield* byOther((other) => other`UPDATE runs SET status = 'completed' WHERE run_id = 'run_own'`)
        expect(yield* next(q.get("runs")!)).toEqual({ topic: "runs", origin: "other", key: "run_own" })
        expect(yield* feed.check).toBe(true)
        expect(yield* Queue.size(q.get("runs")!)).toBe(0)
        expect(yield* Queue.size(q.get("stops")!)).toBe(0)
      }).pipe(Effect.provide(layer), Effect.scoped)
    }).pipe(Effect.scoped), 60_000)

  it.live("notify wakes this process's subscribers of its topic only, at once", () =>
    Effect.gen(function* () {
      const { layer } = yield* onFreshDatabase
      yield* Effect.gen(function* () {
        const feed = yield* ChangeFeed
        const q = yield* collectAll
        yield* feed.notify("keys")
        yield* feed.notify("inbox", "inb_1")
        expect(yield* Queue.take(q.get("keys")!)).toEqual({ topic: "keys", origin: "local" })
        expect(yield* Queue.take(q.get("inbox")!)).toEqual({ topic: "inbox", origin: "local", key: "inb_1" })
        expect(yield* Queue.size(q.get("keys")!)).toBe(0)
        expect(yield* Queue.size(q.get("runs")!)).toBe(0)
        // A local notify is no other connection's commit.
        expect(yield* feed.check).toBe(false)
      }).pipe(Effect.provide(layer), Effect.scoped)
    }).pipe(Effect.scoped), 60_000)

  it.live("a listening connection the server terminates comes back by itself and reports every topic", () =>
    Effect.gen(function* () {
      const { layer, byOther } = yield* onFreshDatabase
      yield* Effect.gen(function* () {
        const q = yield* collectAll
        const terminated = yield* byOther((sql) =>
          sql<{ pid: number }>`SELECT pg_terminate_backend(pid) AS pid FROM pg_stat_activity WHERE application_name = ${FEED_APPLICATION_NAME} AND datname = current_database()`
        )
        expect(terminated).toHaveLength(1)
        // Back: every topic hears that it may have changed (what was committed meanwhile is unknown)…
        for (const topic of TOPICS) expect(yield* next(q.get(topic)!)).toEqual({ topic: "*", origin: "other" })
        const listening = yield* byOther((sql) =>
          sql`SELECT pid FROM pg_stat_activity WHERE application_name = ${FEED_APPLICATION_NAME} AND datname = current_database()`
        )
        expect(listening).toHaveLength(1)
        // …and the next commit is heard again.
        yield* byOther((sql) => sql`INSERT INTO inbox (id, kind, client, state, created_at, payload) VALUES ('inb_1', 'skill_put', 'bob', 'pending', 1, '{}')`)
        expect(yield* next(q.get("inbox")!)).toEqual({ topic: "inbox", origin: "other" })
        expect(Option.isNone(yield* Queue.poll(q.get("keys")!))).toBe(true)
      }).pipe(Effect.provide(layer), Effect.scoped)
    }).pipe(Effect.scoped), 60_000)
})
