/**
 * What the change feed's `runs` trigger costs on the hot write path (migration 0008): every event
 * write updates its run's row, so each commit fires it. Three arms on one throwaway PostgreSQL
 * (test/support/pgServer.ts), one database migrated as the daemon does, a listener attached (so the
 * notifications are queued for someone, as in a daemon):
 *
 * - `none`: the `runs` triggers dropped (the floor),
 * - `row`: 0008's row-level trigger carrying the run id (what ships),
 * - `statement`: a statement-level trigger with no key (the alternative).
 *
 * Each arm commits `WRITES` single-row UPDATEs (autocommit, one per event write), in rounds that
 * alternate the arms; prints the median µs per write of each and the ratios to `none`.
 * Run: `nice -n 10 npx tsx scripts/bench-feed-triggers.ts` (WRITES, ROUNDS in the environment).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import pg from "pg"
import { DbPostgres } from "../src/storage/Db.ts"
import { channelOf } from "../src/storage/pg/ChangeFeedPg.ts"
import { TOPICS } from "../src/storage/ChangeFeed.ts"
import { startPostgres } from "../test/support/pgServer.ts"

const WRITES = Number(process.env["WRITES"] ?? 2000)
const ROUNDS = Number(process.env["ROUNDS"] ?? 5)
const RUNS = 20

type Arm = "none" | "row" | "statement"

const setTriggers = (sql: SqlClient.SqlClient, arm: Arm) =>
  Effect.gen(function* () {
    yield* sql.unsafe(`DROP TRIGGER IF EXISTS runs_change_feed ON runs`)
    if (arm === "row") yield* sql.unsafe(`CREATE TRIGGER runs_change_feed AFTER INSERT OR UPDATE OR DELETE ON runs FOR EACH ROW EXECUTE FUNCTION agent_bridge_notify_run()`)
    if (arm === "statement") yield* sql.unsafe(`CREATE TRIGGER runs_change_feed AFTER INSERT OR UPDATE OR DELETE ON runs FOR EACH STATEMENT EXECUTE FUNCTION agent_bridge_notify_table('runs')`)
  })

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const main = async () => {
  const server = await startPostgres()
  try {
    const url = await server.createDatabase("bench_feed")
    const runtime = ManagedRuntime.make(DbPostgres({ url: Redacted.make(url), pool_max: 2, statement_timeout_ms: 30_000 }).pipe(Layer.orDie))
    const listener = new pg.Client({ connectionString: url })
    await listener.connect()
    let heard = 0
    listener.on("notification", () => void heard++)
    for (const t of TOPICS) await listener.query(`LISTEN ${channelOf(t)}`)
    const run = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) => runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie))
    await run((sql) =>
      Effect.forEach(Array.from({ length: RUNS }, (_, i) => `run_${i}`), (id) =>
        sql`INSERT INTO runs (run_id, client, agent, profile, hermes_run_id, status, input, fingerprint, created_at, updated_at) VALUES (${id}, 'c', 'a', 'p', ${id}, 'running', 'x', 'f', 1, 1)`
      )
    )
    const perWrite: Record<Arm, Array<number>> = { none: [], row: [], statement: [] }
    for (let round = 0; round < ROUNDS; round++) {
      for (const arm of ["none", "row", "statement"] as const) {
        await run((sql) => setTriggers(sql, arm))
        const started = process.hrtime.bigint()
        await run((sql) =>
          Effect.forEach(Array.from({ length: WRITES }, (_, i) => i), (i) =>
            sql`UPDATE runs SET last_seq = last_seq + 1, updated_at = ${i} WHERE run_id = ${`run_${i % RUNS}`}`, { discard: true })
        )
        perWrite[arm].push(Number(process.hrtime.bigint() - started) / 1000 / WRITES)
      }
    }
    const floor = median(perWrite.none)
    for (const arm of ["none", "row", "statement"] as const) {
      const m = median(perWrite[arm])
      console.log(`${arm.padEnd(9)} ${m.toFixed(1).padStart(7)} µs/write  ×${(m / floor).toFixed(3)} of none`)
    }
    console.log(`notifications heard: ${heard} (writes with a trigger: ${WRITES * ROUNDS * 2})`)
    await listener.end()
    await runtime.dispose()
  } finally {
    await server.stop()
  }
}

await main()
