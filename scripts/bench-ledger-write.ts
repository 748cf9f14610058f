/**
 * What one streamed batch's ledger write costs, and how much of it is below the bridge (issue 41,
 * item 4: streams ≤ 1.2× following them straight from the simulator). A follower commits each batch
 * of a streaming run in one transaction: the run's row updated against the version it last wrote,
 * one `message.text` event and one output chunk appended. The same write, 500 runs × `ROUNDS`
 * batches (50 at a time, as runs interleave), on a fresh SQLite file in `data_dir` form each:
 *
 * - `ledger`: `Ledger.modify` with the follower's `expected` record (the bridge's write: the plan,
 *   the encode of the changed fields, the version-guarded UPDATE, the appends, the announce);
 * - `sql`: the same four statements (a transaction, UPDATE … RETURNING, two INSERTs) through
 *   `@effect/sql` with nothing of the ledger around them: the library's floor for this write;
 * - `raw`: the same statements through better-sqlite3, prepared once, in its own transaction
 *   function: SQLite's floor.
 *
 * Prints CPU µs per batch of each (process CPU, user + system, around the arm; arms interleaved
 * over `REPEATS` rounds, the median kept) and the ratios, and a `BENCH_JSON` line.
 *
 *   npx tsx scripts/bench-ledger-write.ts [ROUNDS=40] [REPEATS=3]
 */
import { SqlClient } from "@effect/sql"
import Database from "better-sqlite3"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { TracingOff } from "../src/daemon/tracing.ts"
import { DB_FILE, DbLive } from "../src/storage/Db.ts"
import { Ledger, type RunRecord } from "../src/services/runs/Ledger.ts"
import { LedgerLive } from "../src/services/runs/LedgerSql.ts"
import { newRun } from "../test/support/records.ts"

const ROUNDS = Number(process.argv[2] ?? 40)
const REPEATS = Number(process.argv[3] ?? 3)
const RUNS = 500
const CONCURRENCY = 50
const ARMS = ["ledger", "sql", "raw"] as const
type Arm = (typeof ARMS)[number]

const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
const text = (round: number) => `streamed text of round ${round}, about as long as a delta or two `
const ids = Array.from({ length: RUNS }, (_, i) => `run_${i}`)

/** A fresh data dir with the 500 runs recorded through the ledger; returns their records. */
const seeded = (dir: string) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    return yield* Effect.forEach(ids, (id) => ledger.insert(newRun(id)))
  }).pipe(Effect.provide(LedgerLive.pipe(Layer.provideMerge(DbLive(dir)))), Effect.provide(TracingOff), Effect.scoped)

/** The arm's writes, timed: CPU ms of the whole loop. */
const timed = <E, R>(body: Effect.Effect<void, E, R>) =>
  Effect.gen(function* () {
    const t0 = cpuMs()
    yield* body
    return cpuMs() - t0
  })

const ledgerArm = (dir: string) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const last = new Map<string, RunRecord>()
    for (const r of yield* Effect.forEach(ids, (id) => ledger.get(id))) if (r._tag === "Some") last.set(r.value.runId, r.value)
    return yield* timed(Effect.gen(function* () {
      for (let round = 0; round < ROUNDS; round++) {
        const t = text(round)
        yield* Effect.forEach(ids, (id) =>
          Effect.map(
            ledger.modify(id, () => ({ change: { events: [{ type: "message.text", data: { text: t } }], outputAppend: t, hermesEventId: round + 2 }, result: undefined }), last.get(id)),
            (m) => void last.set(id, m.record)
          ), { concurrency: CONCURRENCY, discard: true })
      }
    }))
  }).pipe(Effect.provide(LedgerLive.pipe(Layer.provideMerge(DbLive(dir)))), Effect.provide(TracingOff), Effect.scoped)

const sqlArm = (dir: string, seeds: ReadonlyArray<RunRecord>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const state = new Map(seeds.map((r) => [r.runId, { version: r.version, seq: r.lastSeq, bytes: r.outputBytes }]))
    return yield* timed(Effect.gen(function* () {
      for (let round = 0; round < ROUNDS; round++) {
        const t = text(round)
        const now = Date.now()
        yield* Effect.forEach(ids, (id) => {
          const s = state.get(id)!
          return sql.withTransaction(Effect.gen(function* () {
            const rows = yield* sql`UPDATE runs SET last_seq = ${s.seq + 1}, output_bytes = ${s.bytes + t.length}, hermes_event_id = ${round + 2}, updated_at = ${now}, version = ${s.version + 1}
                WHERE run_id = ${id} AND version = ${s.version} RETURNING run_id`
            if (rows.length === 0) return yield* Effect.dieMessage("version moved")
            yield* sql`INSERT INTO run_events (run_id, seq, type, at, data) VALUES (${id}, ${s.seq + 1}, ${"message.text"}, ${now}, ${JSON.stringify({ text: t })})`
            yield* sql`INSERT INTO run_output (run_id, start_byte, end_byte, text) VALUES (${id}, ${s.bytes}, ${s.bytes + t.length}, ${t})`
            s.version += 1
            s.seq += 1
            s.bytes += t.length
          }))
        }, { concurrency: CONCURRENCY, discard: true })
      }
    }))
  }).pipe(Effect.provide(DbLive(dir)), Effect.provide(TracingOff), Effect.scoped)

const rawArm = (dir: string, seeds: ReadonlyArray<RunRecord>) => {
  const db = new Database(path.join(dir, DB_FILE))
  db.pragma("journal_mode = WAL")
  const update = db.prepare(`UPDATE runs SET last_seq = ?, output_bytes = ?, hermes_event_id = ?, updated_at = ?, version = ?
      WHERE run_id = ? AND version = ? RETURNING run_id`)
  const event = db.prepare("INSERT INTO run_events (run_id, seq, type, at, data) VALUES (?, ?, ?, ?, ?)")
  const chunk = db.prepare("INSERT INTO run_output (run_id, start_byte, end_byte, text) VALUES (?, ?, ?, ?)")
  const state = new Map(seeds.map((r) => [r.runId, { version: r.version, seq: r.lastSeq, bytes: r.outputBytes }]))
  const write = db.transaction((id: string, t: string, round: number, now: number) => {
    const s = state.get(id)!
    if (update.all(s.seq + 1, s.bytes + t.length, round + 2, now, s.version + 1, id, s.version).length === 0) throw new Error("version moved")
    event.run(id, s.seq + 1, "message.text", now, JSON.stringify({ text: t }))
    chunk.run(id, s.bytes, s.bytes + t.length, t)
    s.version += 1
    s.seq += 1
    s.bytes += t.length
  })
  const t0 = cpuMs()
  for (let round = 0; round < ROUNDS; round++) {
    const t = text(round)
    const now = Date.now()
    for (const id of ids) write(id, t, round, now)
  }
  const spent = cpuMs() - t0
  db.close()
  return spent
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const main = Effect.gen(function* () {
  const results: Record<Arm, Array<number>> = { ledger: [], sql: [], raw: [] }
  for (let repeat = 0; repeat < REPEATS; repeat++) {
    for (const arm of ARMS) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-ledger-${arm}-`))
      try {
        const seeds = yield* seeded(dir)
        const spent = arm === "ledger" ? yield* ledgerArm(dir) : arm === "sql" ? yield* sqlArm(dir, seeds) : rawArm(dir, seeds)
        results[arm].push((spent * 1000) / (RUNS * ROUNDS))
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }
  }
  const us = { ledger: median(results.ledger), sql: median(results.sql), raw: median(results.raw) }
  const f = (n: number) => n.toFixed(1)
  console.log(`bench-ledger-write: ${RUNS} runs × ${ROUNDS} streamed batches, ${CONCURRENCY} at a time, median of ${REPEATS} (node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)})`)
  console.log(`  ledger (Ledger.modify, the follower's write)   ${f(us.ledger)} µs CPU per batch  ${f(us.ledger / us.raw)}× raw`)
  console.log(`  sql (the same statements through @effect/sql)  ${f(us.sql)} µs CPU per batch  ${f(us.sql / us.raw)}× raw`)
  console.log(`  raw (the same statements through better-sqlite3) ${f(us.raw)} µs CPU per batch`)
  console.log(`  the ledger's own share: ${f(us.ledger - us.sql)} µs per batch; @effect/sql's over SQLite: ${f(us.sql - us.raw)} µs`)
  // For scripts/bench.ts: one machine-readable line, last.
  console.log(`BENCH_JSON ${JSON.stringify({
    bench: "ledger-write",
    rows: [
      { metric: "one streamed batch's ledger write, Ledger.modify (µs CPU)", value: us.ledger, baseline: us.raw, baselineName: "the same statements through better-sqlite3" },
      { metric: "the same statements through @effect/sql alone (µs CPU)", value: us.sql, baseline: us.raw, baselineName: "the same statements through better-sqlite3" }
    ]
  })}`)
})

await Effect.runPromise(main)
