/**
 * The SQLite ledger on its own: inserts with their first event, concurrent modifies that never lose
 * a seq, the newest-500 cap, chunked output (append, replace only when it differs), the idempotency
 * index, and the retention sweep.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Option, Stream } from "effect"
import { Ledger, type RunRecord } from "../../src/services/runs/Ledger.ts"
import { LedgerLive, OUTPUT_CHUNK_BYTES } from "../../src/services/runs/LedgerSql.ts"
import { TestDb } from "../support/testDb.ts"
import { utf8 } from "../../src/domain/runs/window.ts"
import { newRun } from "../support/records.ts"


const withLedger = <A, E>(body: Effect.Effect<A, E, Ledger | SqlClient.SqlClient>) =>
  body.pipe(Effect.provide(LedgerLive), Effect.provide(TestDb))

describe("ledger", () => {
  it.effect("a run recorded or written here is announced to this process's `written` subscribers once committed (its id); an empty change is not", () =>
    withLedger(Effect.gen(function* () {
      const ledger = yield* Ledger
      const written = yield* ledger.written
      const ids = yield* Effect.fork(Stream.runCollect(Stream.take(written, 2)))
      yield* ledger.insert(newRun("r-announced"))
      yield* ledger.modify("r-announced", () => ({ change: {}, result: undefined }))
      yield* ledger.modify("r-announced", () => ({ change: { status: "completed" }, result: undefined }))
      expect(Chunk.toReadonlyArray(yield* Fiber.join(ids))).toEqual(["r-announced", "r-announced"])
      // The empty change came between the two: a third id would be a spurious one.
      const more = yield* Effect.fork(Stream.runHead(written))
      yield* ledger.insert(newRun("r-next"))
      expect(yield* Fiber.join(more)).toEqual(Option.some("r-next"))
    }).pipe(Effect.scoped)))

  it.effect("inserts a run with run.started as seq 1 and refuses a taken idempotency key", () =>
    withLedger(Effect.gen(function* () {
      const ledger = yield* Ledger
      const r = yield* ledger.insert(newRun("r1", { idempotencyKey: "alice:k" }))
      expect(r.lastSeq).toBe(1)
      expect(yield* ledger.eventsAfter("r1", 0, 10)).toEqual([{ seq: 1, type: "run.started", at: r.createdAt, data: {} }])
      const taken = yield* Effect.flip(ledger.insert(newRun("r2", { idempotencyKey: "alice:k" })))
      expect(taken._tag).toBe("IdempotencyTaken")
      // Another profile is another key space.
      yield* ledger.insert(newRun("r3", { idempotencyKey: "alice:k", profile: "coder" }))
      expect(Option.map(yield* ledger.byIdempotencyKey("default", "alice:k"), (x) => x.runId)).toEqual(Option.some("r1"))
      expect(yield* ledger.countActive("alice")).toBe(2)
    })))

  it.effect("keeps the face a run was started through (mcp by default), in the record, the briefs and the live counts", () =>
    withLedger(Effect.gen(function* () {
      const ledger = yield* Ledger
      yield* ledger.insert(newRun("r1"))
      yield* ledger.insert(newRun("r2", { face: "a2a" }))
      yield* ledger.insert(newRun("r3", { face: "a2a", client: "bob" }))
      expect(Option.map(yield* ledger.get("r2"), (r) => r.face)).toEqual(Option.some("a2a"))
      expect(Option.map(yield* ledger.get("r1"), (r) => r.face)).toEqual(Option.some("mcp"))
      expect(Option.map(yield* ledger.brief("r2"), (b) => b.face)).toEqual(Option.some("a2a"))
      expect((yield* ledger.briefs({ limit: 10 })).map((b) => [b.runId, b.face]).sort()).toEqual([["r1", "mcp"], ["r2", "a2a"], ["r3", "a2a"]])
      expect(yield* ledger.liveByClient).toEqual([{ client: "alice", face: "a2a", n: 1 }, { client: "alice", face: "mcp", n: 1 }, { client: "bob", face: "a2a", n: 1 }])
      // The column refuses a face the bridge does not have.
      const sql = yield* SqlClient.SqlClient
      const bad = yield* Effect.flip(sql`UPDATE runs SET face = 'grpc' WHERE run_id = 'r1'`)
      expect(bad._tag).toBe("SqlError")
    })))

  it.effect("lists through a cursor past 200 runs, ties of created_at in insertion order, with filters and a count", () =>
    withLedger(Effect.gen(function* () {
      const ledger = yield* Ledger
      const ids = Array.from({ length: 230 }, (_, i) => `r${String(i).padStart(3, "0")}`)
      for (const id of ids) yield* ledger.insert(newRun(id, id.endsWith("7") ? { sessionKey: "alice:ctx" } : {}))
      yield* ledger.insert(newRun("b1", { client: "bob" }))
      const seen: Array<string> = []
      let after: string | undefined
      for (let page = 0; page < 10; page++) {
        const rows = yield* ledger.list({ client: "alice", limit: 100, after })
        seen.push(...rows.map((r) => r.runId))
        if (rows.length < 100) break
        after = rows[rows.length - 1]!.runId
      }
      // Newest first: the reverse of insertion, every run once, none of bob's.
      expect(seen).toEqual([...ids].reverse())
      expect(yield* ledger.count({ client: "alice" })).toBe(230)
      const ctx = yield* ledger.list({ client: "alice", sessionKey: "alice:ctx", limit: 10, after: "r207" })
      expect(ctx.map((r) => r.runId)).toEqual(["r197", "r187", "r177", "r167", "r157", "r147", "r137", "r127", "r117", "r107"])
      expect(yield* ledger.count({ client: "alice", sessionKey: "alice:ctx" })).toBe(23)
      expect(yield* ledger.count({ client: "alice", statuses: ["completed"] })).toBe(0)
      expect(yield* ledger.count({ client: "alice", statuses: [] })).toBe(0)
      // A cursor the ledger no longer holds lists nothing after it.
      expect(yield* ledger.list({ client: "alice", limit: 10, after: "gone" })).toEqual([])
    })))

  it.effect("concurrent modifies each get their own seqs and none is lost", () =>
    withLedger(Effect.gen(function* () {
      const ledger = yield* Ledger
      yield* ledger.insert(newRun("r1"))
      yield* Effect.all(
        Array.from({ length: 40 }, (_, i) =>
          ledger.modify("r1", () => ({ change: { events: [{ type: "tool.started", data: { i } }, { type: "tool.completed", data: { i } }] }, result: i }))),
        { concurrency: "unbounded" }
      )
      const events = yield* ledger.eventsAfter("r1", 0, 500)
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 81 }, (_, i) => i + 1))
      // Each modify's two events are adjacent: a transaction is never interleaved with another.
      for (let k = 1; k < 81; k += 2) expect(events[k]!.data["i"]).toBe(events[k + 1]!.data["i"])
      const missing = yield* Effect.flip(ledger.modify("nope", () => ({ change: {}, result: 0 })))
      expect(missing._tag).toBe("LedgerRunMissing")
    })))

  it.effect("a write against the run as its writer last stored it (`expected`) is not decided again while nobody wrote since; every write adds one to the version", () =>
    withLedger(Effect.gen(function* () {
      const ledger = yield* Ledger
      const sql = yield* SqlClient.SqlClient
      const first = yield* ledger.insert(newRun("r1"))
      expect(first.version).toBe(1) // the insert's run.started is its first write
      const seen: Array<number> = []
      const append = (text: string) => (current: RunRecord) => {
        seen.push(current.lastSeq)
        return { change: { events: [{ type: "message.text", data: { text } }], outputAppend: text }, result: undefined }
      }
      const a = yield* ledger.modify("r1", append("a"), first)
      expect(a.record.version).toBe(2)
      // A column changed behind the ledger's back (no writer does this: every UPDATE adds to the
      // version) is not seen by a write at the version the writer holds: that write read no row.
      yield* sql`UPDATE runs SET error = 'behind' WHERE run_id = 'r1'`
      const b = yield* ledger.modify("r1", append("b"), a.record)
      expect(b.record.error).toBe(null)
      expect(b.record.version).toBe(3)
      expect(seen).toEqual([1, 2])
      // Stored as a write that read the row would have stored it.
      expect((yield* ledger.get("r1")).pipe(Option.getOrThrow)).toEqual({ ...b.record, error: "behind" })
    })))

  it.effect("a write against a copy someone wrote past (`expected` stale) reads the row and decides again, losing neither write", () =>
    withLedger(Effect.gen(function* () {
      const ledger = yield* Ledger
      const first = yield* ledger.insert(newRun("r1"))
      const stale = (yield* ledger.modify("r1", () => ({ change: { events: [{ type: "message.text", data: { text: "a" } }], outputAppend: "a" }, result: undefined }), first)).record
      // A stop records its status and event in between.
      yield* ledger.modify("r1", () => ({ change: { status: "stopping", events: [{ type: "run.stopping", data: {} }] }, result: undefined }))
      const decided: Array<string> = []
      const next = yield* ledger.modify("r1", (current) => {
        decided.push(`${current.status}@${current.lastSeq}`)
        return { change: { events: [{ type: "message.text", data: { text: "b" } }], outputAppend: "b" }, result: undefined }
      }, stale)
      // Decided from the copy, refused at its version, decided again from the row as stored.
      expect(decided).toEqual(["running@2", "stopping@3"])
      expect(next.record).toMatchObject({ status: "stopping", lastSeq: 4, outputBytes: 2, version: 4 })
      expect((yield* ledger.eventsAfter("r1", 0, 10)).map((e) => e.type)).toEqual(["run.started", "message.text", "run.stopping", "message.text"])
      expect(yield* ledger.output("r1")).toBe("ab")
    })))

  it.effect("an empty change against a copy answers the row as stored, and a copy of a run no longer stored fails as missing", () =>
    withLedger(Effect.gen(function* () {
      const ledger = yield* Ledger
      const first = yield* ledger.insert(newRun("r1"))
      yield* ledger.modify("r1", () => ({ change: { status: "completed" }, result: undefined }))
      const empty = yield* ledger.modify("r1", () => ({ change: {}, result: "nothing" }), first)
      expect(empty.record.status).toBe("completed")
      expect(empty.result).toBe("nothing")
      const gone = yield* Effect.flip(ledger.modify("r2", () => ({ change: { status: "completed" }, result: 0 }), { ...first, runId: "r2" }))
      expect(gone._tag).toBe("LedgerRunMissing")
    })))

  it.effect("keeps the newest 500 events of a run", () =>
    withLedger(Effect.gen(function* () {
      const ledger = yield* Ledger
      yield* ledger.insert(newRun("r1"))
      yield* ledger.insert(newRun("r2"))
      for (let i = 0; i < 7; i++) {
        yield* ledger.modify("r1", () => ({ change: { events: Array.from({ length: 100 }, () => ({ type: "tool.started", data: {} })) }, result: 0 }))
      }
      const sql = yield* SqlClient.SqlClient
      const counts = yield* sql<{ run_id: string; n: number; lo: number }>`SELECT run_id, count(*) AS n, min(seq) AS lo FROM run_events GROUP BY run_id ORDER BY run_id`
      expect(counts).toEqual([{ run_id: "r1", n: 500, lo: 202 }, { run_id: "r2", n: 1, lo: 1 }])
      expect(Option.map(yield* ledger.get("r1"), (r) => r.lastSeq)).toEqual(Option.some(701))
    })))

  it.effect("stores output in chunks, reads any byte range, and replaces it only when the final text differs", () =>
    withLedger(Effect.gen(function* () {
      const ledger = yield* Ledger
      const sql = yield* SqlClient.SqlClient
      yield* ledger.insert(newRun("r1"))
      const text = "🚀".repeat(10_000) + "é".repeat(10_000)
      for (const part of text.match(/[\s\S]{1,3001}/gu) ?? []) {
        yield* ledger.modify("r1", () => ({ change: { outputAppend: part }, result: 0 }))
      }
      const rec = Option.getOrThrow(yield* ledger.get("r1"))
      expect(rec.outputBytes).toBe(utf8(text).length)
      expect(rec.outputHead).toBe("🚀".repeat(8392))
      const chunks = yield* sql<{ start_byte: number; end_byte: number }>`SELECT start_byte, end_byte FROM run_output WHERE run_id = 'r1' ORDER BY start_byte`
      for (const [i, c] of chunks.entries()) {
        expect(c.end_byte - c.start_byte).toBeLessThanOrEqual(OUTPUT_CHUNK_BYTES)
        if (i > 0) expect(c.start_byte).toBe(chunks[i - 1]!.end_byte)
      }
      const slice = yield* ledger.outputSlice("r1", 30_000, 50_000, rec.outputBytes)
      expect(slice.base).toBeLessThanOrEqual(30_000)
      expect(slice.base + slice.bytes.length).toBeGreaterThanOrEqual(50_000)
      expect(Buffer.from(slice.bytes).equals(Buffer.from(utf8(text).subarray(slice.base, slice.base + slice.bytes.length)))).toBe(true)

      const before = chunks.length
      yield* ledger.modify("r1", () => ({ change: { outputReplace: text, status: "completed" }, result: 0 }))
      expect((yield* sql<{ n: number }>`SELECT count(*) AS n FROM run_output WHERE run_id = 'r1'`)[0]!.n).toBe(before)
      yield* ledger.modify("r1", () => ({ change: { outputReplace: "short" }, result: 0 }))
      const after = Option.getOrThrow(yield* ledger.get("r1"))
      expect(after.outputBytes).toBe(5)
      expect(after.outputHead).toBe("short")
      expect(after.endedAt).not.toBeNull()
    })))

  it.effect("sweeps runs that ended before the cutoff, with their events and output, and nothing else", () =>
    withLedger(Effect.gen(function* () {
      const ledger = yield* Ledger
      const sql = yield* SqlClient.SqlClient
      yield* ledger.insert(newRun("old"))
      yield* ledger.insert(newRun("live"))
      yield* ledger.modify("old", () => ({ change: { outputAppend: "x", status: "completed" }, result: 0 }))
      const ended = Option.getOrThrow(yield* ledger.get("old")).endedAt!
      expect(yield* ledger.sweep(ended)).toBe(0)
      expect(yield* ledger.sweep(ended + 1)).toBe(1)
      expect(Option.isNone(yield* ledger.get("old"))).toBe(true)
      expect(Option.isSome(yield* ledger.get("live"))).toBe(true)
      const left = yield* sql<{ n: number }>`SELECT (SELECT count(*) FROM run_events WHERE run_id = 'old') + (SELECT count(*) FROM run_output WHERE run_id = 'old') AS n`
      expect(left[0]!.n).toBe(0)
      expect((yield* ledger.active).map((r) => r.runId)).toEqual(["live"])
    })))
})
