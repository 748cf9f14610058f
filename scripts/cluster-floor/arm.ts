/**
 * One arm of scripts/bench-cluster-floor.ts, run as a process of its own (bundled by the bench, so
 * no loader is measured): what an idle replica's clock costs below the bridge.
 *
 *   node arm.mjs MODE POSTGRES_URL [CLUSTER_PORT]
 *
 * - `floor`: one timer a second and nothing else (the runtime's own floor; an idle daemon keeps
 *   such a timer: the event-loop delay sample);
 * - `pg`: the cluster's idle statements at `CLUSTER_TIMING`, through node-postgres alone: every
 *   `lockRefreshMs` the heartbeat `UPDATE` and the advisory-lock read on one held connection, every
 *   `assignmentsRefreshMs` the live-runner read, every `messagePollMs` a message-table read;
 * - `sql`: the same statements at the same times through `@effect/sql-pg` and Effect's schedules;
 * - `runner`: the bridge's own cluster runner (`ClusterRunnerLive`: `@effect/cluster` over the
 *   bridge's pool, its socket server behind the secret's hello) with nothing else of the bridge.
 *
 * The statements and tables are the library's (`SqlRunnerStorage`, `SqlMessageStorage` 0.60);
 * `pg` and `sql` make throwaway tables of the same shape.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted, Schedule } from "effect"
import pg from "pg"
import { ClusterRunnerLive } from "../../src/daemon/clusterRunner.ts"
import { CLUSTER_TIMING } from "../../src/domain/limits.ts"
import { pgClientLayer } from "../../src/storage/pg/pgLazy.ts"

const [mode, url, portArg] = process.argv.slice(2)
if (mode === undefined || url === undefined) throw new Error("usage: arm.mjs floor|pg|sql|runner POSTGRES_URL [CLUSTER_PORT]")

const TABLES = [
  "CREATE TABLE IF NOT EXISTS floor_runners (address text PRIMARY KEY, runner text NOT NULL, healthy boolean NOT NULL, last_heartbeat timestamptz NOT NULL)",
  "CREATE TABLE IF NOT EXISTS floor_messages (id bigint PRIMARY KEY, shard_id text NOT NULL, processed boolean NOT NULL)"
]
const HEARTBEAT = "UPDATE floor_runners SET last_heartbeat = NOW() WHERE address = 'arm'"
const LOCKS = "SELECT objid FROM pg_locks WHERE locktype = 'advisory' AND granted = true AND pid = pg_backend_pid() ORDER BY objid"
const RUNNERS = `SELECT runner, healthy FROM floor_runners WHERE last_heartbeat > NOW() - INTERVAL '${Math.ceil(CLUSTER_TIMING.lockExpirationMs / 1000)} seconds'`
const MESSAGES = "SELECT id FROM floor_messages WHERE processed = false AND shard_id = ANY($1) ORDER BY id LIMIT 100"
const SHARDS = Array.from({ length: CLUSTER_TIMING.shards }, (_, i) => `default:${i + 1}`)

const ready = () => console.log("ARM_READY")

if (mode === "floor") {
  setInterval(() => undefined, 1000)
  ready()
} else if (mode === "pg") {
  const pool = new pg.Pool({ connectionString: url })
  for (const t of TABLES) await pool.query(t)
  await pool.query("INSERT INTO floor_runners VALUES ('arm', 'arm', true, NOW()) ON CONFLICT DO NOTHING")
  const held = await pool.connect()
  // Each loop waits for its statements before it sleeps again, as the library's schedules do.
  const every = (ms: number, run: () => Promise<unknown>) => {
    const tick = () => void run().finally(() => setTimeout(tick, ms))
    setTimeout(tick, ms)
  }
  every(CLUSTER_TIMING.lockRefreshMs, async () => {
    await held.query(HEARTBEAT)
    await held.query(LOCKS)
  })
  every(CLUSTER_TIMING.assignmentsRefreshMs, () => pool.query(RUNNERS))
  every(CLUSTER_TIMING.messagePollMs, () => pool.query(MESSAGES, [SHARDS]))
  ready()
} else if (mode === "sql") {
  const program = Effect.gen(function* () {
    const sql = yield* PgClient.PgClient
    for (const t of TABLES) yield* sql.unsafe(t)
    yield* sql`INSERT INTO floor_runners VALUES ('arm', 'arm', true, NOW()) ON CONFLICT DO NOTHING`
    const held = yield* sql.reserve
    const lockLoop = Effect.zipRight(held.executeRaw(HEARTBEAT, []), held.executeValues(LOCKS, [])).pipe(
      Effect.timeout(CLUSTER_TIMING.lockRefreshMs),
      Effect.repeat(Schedule.fixed(CLUSTER_TIMING.lockRefreshMs))
    )
    const runnersLoop = sql.unsafe(RUNNERS).values.pipe(Effect.timeout("5 seconds"), Effect.zipRight(Effect.sleep(CLUSTER_TIMING.assignmentsRefreshMs)), Effect.forever)
    const messagesLoop = sql.unsafe(MESSAGES, [SHARDS]).pipe(Effect.repeat(Schedule.spaced(CLUSTER_TIMING.messagePollMs)))
    yield* Effect.forkScoped(lockLoop)
    yield* Effect.forkScoped(runnersLoop)
    yield* Effect.forkScoped(messagesLoop)
    ready()
    return yield* Effect.never
  })
  Effect.runFork(Effect.scoped(program).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url) }))))
} else if (mode === "runner") {
  const port = Number(portArg)
  const runner = ClusterRunnerLive({ host: "127.0.0.1", port }, 4, Redacted.make("cluster-floor-secret-0123456789abcdef")).pipe(
    Layer.provide(pgClientLayer({ url: Redacted.make(url), maxConnections: 4 }))
  )
  Effect.runFork(Layer.launch(Layer.merge(runner, Layer.effectDiscard(Effect.sync(ready)))))
} else {
  throw new Error(`unknown mode ${mode}`)
}

process.on("SIGTERM", () => process.exit(0))
