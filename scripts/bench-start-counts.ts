/**
 * `npx tsx scripts/bench-start-counts.ts [LIVE=3000] [ENDED=50000]`: the SQLite time of the counts a
 * start makes (a profile's load, its live runs for a slot, the client's live runs for its cap, the
 * client's waiting runs for its queue), on a ledger holding LIVE live runs and ENDED ended ones (100
 * clients over 5 profiles), with migration 0017's partial indexes against the same ledger without
 * them (the indexes a daemon had before 0017: the baseline, same data, same run).
 *
 * The statements are the ledger's own: captured as `LedgerLive` runs them (`@effect/sql`'s
 * statement transformer), then each timed through better-sqlite3 directly (REPS runs after a
 * warm-up), so the figure is SQLite's and nothing of Effect's. These counts run on the daemon's one
 * event loop (better-sqlite3 is synchronous): what they take, every other client waits.
 *
 * The last line is `BENCH_JSON {…}` for scripts/bench.ts.
 */
import { Statement } from "@effect/sql"
import Database from "better-sqlite3"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Ledger } from "../src/services/runs/Ledger.ts"
import { LedgerLive } from "../src/services/runs/LedgerSql.ts"
import { DB_FILE, DbLive } from "../src/storage/Db.ts"
import { newRun } from "../test/support/records.ts"

const LIVE = Number(process.argv[2] ?? 3000)
const ENDED = Number(process.argv[3] ?? 50000)
const REPS = 300
const PAD = "x".repeat(300)

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-start-counts-"))

/** The count statements of one start (and their parameters), as the ledger runs them. */
const captureCounts = Effect.gen(function* () {
  const ledger = yield* Ledger
  const seen: Array<readonly [string, ReadonlyArray<unknown>]> = []
  const capture: Statement.Statement.Transformer = (self) => Effect.sync(() => (seen.push(self.compile()), self))
  yield* Effect.gen(function* () {
    yield* ledger.profileLoad("p1")
    yield* ledger.reserveSlot("p1", 1_000_000, "bench-slot", 0)
    yield* ledger.insert(newRun("bench-live", { client: "c1", profile: "p1", maxActive: 1_000_000 }))
    yield* ledger.insert(newRun("bench-queued", { client: "c1", profile: "p1", status: "queued", hermesRunId: "", maxQueued: 1_000_000 }))
  }).pipe(Statement.withTransformer(capture))
  return seen.filter(([text]) => /count\(\*\)|sum\(/i.test(text) && /FROM runs\b/.test(text))
})

const NAMES = ["a profile's load", "a profile's live runs (slot)", "a client's live runs (cap)", "a client's waiting runs (queue)"]
const INDEXES_0017 = ["runs_live_load", "runs_live_client", "runs_waiting_client"]

const main = async () => {
  const counts = await Effect.runPromise(captureCounts.pipe(Effect.provide(LedgerLive), Effect.provide(DbLive(dir).pipe(Layer.orDie))))
  const db = new Database(path.join(dir, DB_FILE))
  const live = db.prepare("INSERT INTO runs (run_id, client, agent, profile, hermes_run_id, status, input, fingerprint, output_head, created_at, updated_at, admitted_at, ended_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)")
  db.transaction(() => {
    for (let i = 0; i < LIVE; i++) live.run(`live_${i}`, `c${i % 100}`, `p${i % 5}`, `p${i % 5}`, `h${i}`, "running", PAD, "f", PAD, i, i, i, null)
    for (let i = 0; i < ENDED; i++) live.run(`ended_${i}`, `c${i % 100}`, `p${i % 5}`, `p${i % 5}`, `he${i}`, "completed", PAD, "f", PAD, i, i, i, i)
  })()
  const time = (text: string, params: ReadonlyArray<unknown>) => {
    const st = db.prepare(text)
    for (let i = 0; i < 20; i++) st.all(...params)
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < REPS; i++) st.all(...params)
    return Number(process.hrtime.bigint() - t0) / 1e6 / REPS
  }
  const plan = (text: string, params: ReadonlyArray<unknown>) =>
    (db.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...params) as Array<{ detail: string }>).map((r) => r.detail).filter((d) => / runs\b/.test(d)).join("; ")
  const now = counts.map(([text, params]) => ({ ms: time(text, params), plan: plan(text, params) }))
  // The baseline: the same ledger with the indexes it had before migration 0017 (which replaced `runs_live`).
  for (const index of INDEXES_0017) db.exec(`DROP INDEX ${index}`)
  db.exec("CREATE INDEX runs_live ON runs (client) WHERE ended_at IS NULL")
  const before = counts.map(([text, params]) => ({ ms: time(text, params), plan: plan(text, params) }))
  db.close()
  fs.rmSync(dir, { recursive: true, force: true })

  console.log(`bench-start-counts: ${LIVE} live runs and ${ENDED} ended ones, 100 clients over 5 profiles; SQLite time per count, ${REPS} runs each (node ${process.version}, load ${os.loadavg()[0]!.toFixed(1)})`)
  const rows = counts.map((_, i) => {
    console.log(`  ${(NAMES[i] ?? `count ${i}`).padEnd(32)} ${now[i]!.ms.toFixed(3)} ms (${now[i]!.plan}) vs ${before[i]!.ms.toFixed(3)} ms before 0017 (${before[i]!.plan})`)
    return { metric: `SQLite ms for ${NAMES[i] ?? `count ${i}`}, ${LIVE} live + ${ENDED} ended runs`, value: now[i]!.ms, baseline: before[i]!.ms, baselineName: "the same ledger without migration 0017's indexes" }
  })
  const sum = (xs: ReadonlyArray<{ ms: number }>) => xs.reduce((a, x) => a + x.ms, 0)
  console.log(`  a start's counts in all           ${sum(now).toFixed(3)} ms vs ${sum(before).toFixed(3)} ms (${(sum(now) / sum(before)).toFixed(3)}×)`)
  rows.push({ metric: `SQLite ms for a start's counts, ${LIVE} live + ${ENDED} ended runs`, value: sum(now), baseline: sum(before), baselineName: "the same ledger without migration 0017's indexes" })
  console.log(`BENCH_JSON ${JSON.stringify({ bench: "start-counts", rows })}`)
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
