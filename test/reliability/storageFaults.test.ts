/**
 * Storage faults: the run ledger fails or stalls at chosen points (SQLITE_BUSY, SQLITE_FULL, a
 * stall), through a proxy Ledger and through SQLite itself (a transaction cut between its
 * statements, a real page limit). Every failure is a typed `bridge.*` answer with nothing of the
 * database's detail in it; a start whose run Hermes accepted but the ledger could not record is
 * `bridge.store_unavailable` and Hermes is told to stop that run; nothing is ever half-written; a
 * follower that cannot commit retries and resumes exactly after what it stored.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { SimGeneration } from "../../src/hermes/sim/options.ts"
import type { Fault } from "../../src/services/runs/LedgerFaulty.ts"
import { eventually } from "../runs/support/harness.ts"
import type { ToolOutcome } from "./support/mcpClient.ts"
import { type CallTool, eventProblems, readAllEvents, readOutput, textOf } from "./support/runChecks.ts"
import { storageHarness } from "./support/storageHarness.ts"

type Harness = Effect.Effect.Success<ReturnType<typeof storageHarness>>

const ok = (what: string, o: ToolOutcome) => (o.ok ? Effect.succeed(o.value) : Effect.dieMessage(`${what}: ${o.text}`))

/** Hermes's newest run for this input (a retried start leaves the stopped ones before it). */
const simRunOf = (h: Harness, input: string) => [...h.sim.state.runs.values()].filter((r) => r.input === input).at(-1)
const startRequests = (h: Harness) => h.sim.state.requests.filter((r) => r.method === "POST" && /^\/v1\/runs\/?$/.test(r.path)).length
const rowsFor = (h: Harness, input: string) =>
  h.sql<{ n: number }>`SELECT COUNT(*) AS n FROM runs WHERE input = ${input}`.pipe(Effect.map((r) => r[0]?.n ?? -1), Effect.orDie)
const allEventRows = (h: Harness) => h.sql<{ n: number }>`SELECT COUNT(*) AS n FROM run_events`.pipe(Effect.map((r) => r[0]?.n ?? -1), Effect.orDie)

/** Nothing of SQLite's detail reaches the caller. */
const expectOpaque = (o: ToolOutcome) => {
  expect(o.ok).toBe(false)
  if (!o.ok) expect(o.text).not.toMatch(/SQLITE|locked|disk|database/i)
}

/** The start was refused as store_unavailable, Hermes stopped the run, and the ledger has no trace of it. */
const expectUnrecorded = (h: Harness, input: string, out: ToolOutcome, eventsBefore: number) =>
  Effect.gen(function* () {
    expect(out.ok ? "started" : out.code).toBe("bridge.store_unavailable")
    expectOpaque(out)
    const started = simRunOf(h, input)
    expect(started).toBeDefined()
    expect(h.sim.state.requests.some((r) => r.method === "POST" && r.path === `/v1/runs/${started!.id}/stop`)).toBe(true)
    yield* eventually(Effect.sync(() => started!.status), (s) => s === "cancelled", "Hermes cancels the run")
    expect(yield* rowsFor(h, input)).toBe(0)
    expect(yield* allEventRows(h)).toBe(eventsBefore)
    const listed = yield* ok("list", yield* h.call("agent_runs_list", { limit: 200 }, "admin"))
    expect((listed.runs as ReadonlyArray<{ input_preview: string }>).some((r) => r.input_preview === input)).toBe(false)
  })

/** Waits for the run to end and checks its events and whole output against what Hermes streamed. */
const expectIntact = (h: Harness, runId: string, input: string) =>
  Effect.gen(function* () {
    const done = yield* ok("wait", yield* h.call("agent_run_wait", { run_id: runId, timeout_s: 60 }))
    expect(done.status).toBe("completed")
    const call: CallTool = (tool, args) => Effect.runPromise(h.call(tool, args))
    const { output, view } = yield* Effect.promise(() => readOutput(call, runId))
    const events = yield* Effect.promise(() => readAllEvents(call, runId))
    expect(eventProblems(events, view.last_seq)).toEqual([])
    const expected = simRunOf(h, input)?.output
    expect(output).toBe(expected)
    expect(textOf(events)).toBe(expected)
    return done
  })

describe("storage faults", () => {
  it.live("a start the ledger cannot record (busy, disk full, stall then busy) is store_unavailable and Hermes stops the run", () =>
    Effect.gen(function* () {
      const h = yield* storageHarness()
      const faults: ReadonlyArray<Fault> = [{ kind: "busy" }, { kind: "full" }, { kind: "stall", ms: 1_000, then: "busy" }]
      for (const [i, fault] of faults.entries()) {
        const input = `unrecorded ${i} (${fault.kind}) [sim:slow=30s,events=10]`
        const eventsBefore = yield* allEventRows(h)
        h.faults.inject("insert", fault)
        const out = yield* h.call("agent_run", { agent: "hermes", input, idempotency_key: `key-${i}` })
        yield* expectUnrecorded(h, input, out, eventsBefore)
      }
      // A stall alone only delays the start.
      h.faults.inject("insert", { kind: "stall", ms: 1_000 })
      const slow = yield* ok("stalled start", yield* h.call("agent_run", { agent: "hermes", input: "stalled [sim:deltas=3]" }))
      yield* expectIntact(h, slow.run_id, "stalled [sim:deltas=3]")
      expect(h.faults.armed()).toBe(0)
    }).pipe(Effect.scoped))

  it.live("a retry of a start that was store_unavailable starts the request afresh, once, under the same key", () =>
    Effect.gen(function* () {
      const h = yield* storageHarness()
      const input = "retried after a failed insert [sim:slow=2s,events=6]"
      const args = { agent: "hermes", input, idempotency_key: "retry-me" }
      for (let i = 0; i < 2; i++) {
        // Two failed attempts in a row: each is stopped in Hermes and never recorded.
        h.faults.inject("insert", { kind: "busy" })
        const refused = yield* h.call("agent_run", args)
        expect(refused.ok ? "started" : refused.code).toBe("bridge.store_unavailable")
        const stopped = [...h.sim.state.runs.values()].filter((r) => r.input === input)
        expect(stopped.length).toBe(i + 1)
        yield* eventually(Effect.sync(() => stopped.every((r) => r.status === "cancelled")), Boolean, "Hermes cancels the run")
      }
      // Hermes replays the key's stopped run; the bridge does not adopt it but starts the request again.
      const retried = yield* ok("retry", yield* h.call("agent_run", args))
      const hermesRuns = [...h.sim.state.runs.values()].filter((r) => r.input === input)
      expect(hermesRuns.length).toBe(3)
      expect(hermesRuns.filter((r) => r.status === "cancelled").length).toBe(2)
      expect(h.logs.some((l) => l.includes("starting the request afresh"))).toBe(true)
      const done = yield* expectIntact(h, retried.run_id, input)
      expect(done.status).toBe("completed")
      // From now on the ledger answers the key: the same run, no further Hermes start.
      const starts = startRequests(h)
      const again = yield* ok("replay", yield* h.call("agent_run", args))
      expect(again.run_id).toBe(retried.run_id)
      expect(startRequests(h)).toBe(starts)
      expect(yield* rowsFor(h, input)).toBe(1)
    }).pipe(Effect.scoped))

  it.live("a start Hermes accepted but a crash kept from the ledger is adopted on retry, not started twice", () =>
    Effect.gen(function* () {
      const h = yield* storageHarness()
      const input = "cut off by a crash [sim:slow=2s,events=6]"
      // What a daemon killed between Hermes's answer and the insert leaves behind: a live Hermes run
      // under the client's prefixed key, and nothing in the ledger.
      const profile = yield* h.hermes.profile("hermes").pipe(Effect.orDie)
      const orphan = yield* h.hermes.start(profile, { input, idempotencyKey: "alice:cut-off" }).pipe(Effect.orDie)
      const adopted = yield* ok("retry", yield* h.call("agent_run", { agent: "hermes", input, idempotency_key: "cut-off" }))
      expect([...h.sim.state.runs.values()].filter((r) => r.input === input).map((r) => r.id)).toEqual([orphan.hermesRunId])
      yield* expectIntact(h, adopted.run_id, input)
    }).pipe(Effect.scoped))

  it.live("a transaction cut between its statements (disk full) leaves no half-written run", () =>
    Effect.gen(function* () {
      const h = yield* storageHarness()
      // The run row is written first; the disk "fills" at its first event, in the same transaction.
      yield* h.sql.unsafe(`CREATE TEMP TRIGGER disk_full BEFORE INSERT ON main.run_events BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`).pipe(Effect.orDie)
      const input = "cut between statements [sim:slow=30s,events=10]"
      const eventsBefore = yield* allEventRows(h)
      const out = yield* h.call("agent_run", { agent: "hermes", input, idempotency_key: "cut" })
      yield* expectUnrecorded(h, input, out, eventsBefore)
      yield* h.sql.unsafe("DROP TRIGGER temp.disk_full").pipe(Effect.orDie)
      const after = yield* ok("start after", yield* h.call("agent_run", { agent: "hermes", input: "after the cut [sim:deltas=2]" }))
      yield* expectIntact(h, after.run_id, "after the cut [sim:deltas=2]")
    }).pipe(Effect.scoped))

  it.live("a real page limit (SQLITE_FULL) at the start is store_unavailable, and Hermes stops the run", () =>
    Effect.gen(function* () {
      const h = yield* storageHarness()
      // An input too big for the pages the database has, so the run's row needs new ones.
      const input = `no room for this run [sim:slow=30s,events=10] ${"x".repeat(64 * 1024)}`
      const eventsBefore = yield* allEventRows(h)
      const [pages] = yield* h.sql<{ page_count: number }>`PRAGMA page_count`.pipe(Effect.orDie)
      yield* h.sql.unsafe(`PRAGMA max_page_count = ${pages!.page_count}`).pipe(Effect.orDie)
      const out = yield* h.call("agent_run", { agent: "hermes", input, idempotency_key: "no-room" })
      yield* h.sql.unsafe("PRAGMA max_page_count = 1073741823").pipe(Effect.orDie)
      yield* expectUnrecorded(h, input, out, eventsBefore)
    }).pipe(Effect.scoped))

  it.live("lookups that fail before Hermes is asked start nothing and answer bridge.internal with an incident only", () =>
    Effect.gen(function* () {
      const h = yield* storageHarness()
      for (const [op, fault] of [["byIdempotencyKey", { kind: "busy" }], ["countActive", { kind: "full" }]] as const) {
        const starts = startRequests(h)
        h.faults.inject(op, fault)
        const out = yield* h.call("agent_run", { agent: "hermes", input: `lookup ${op}`, idempotency_key: `lookup-${op}` })
        expect(out.ok ? "started" : out.code).toBe("bridge.internal")
        expectOpaque(out)
        // The detail is logged under the incident id the caller gets, and nowhere else.
        const incident = /inc_[0-9a-f]{16}/.exec(out.ok ? "" : out.text)?.[0]
        expect(incident).toBeDefined()
        expect(h.logs.some((l) => l.includes(incident!) && l.includes(fault.kind === "busy" ? "database is locked" : "database or disk is full"))).toBe(true)
        expect(startRequests(h)).toBe(starts)
        expect(yield* rowsFor(h, `lookup ${op}`)).toBe(0)
      }
      // The same starts go through once the ledger answers again.
      const again = yield* ok("retry", yield* h.call("agent_run", { agent: "hermes", input: "lookup byIdempotencyKey", idempotency_key: "lookup-byIdempotencyKey" }))
      expect(again.status).toBe("running")
    }).pipe(Effect.scoped))

  it.live("reads under a failing or stalling ledger: typed refusals, answers after a stall, waits that still end", () =>
    Effect.gen(function* () {
      const h = yield* storageHarness()
      const run = yield* ok("start", yield* h.call("agent_run", { agent: "hermes", input: "read me [sim:slow=2s,events=10]" }))
      for (const [tool, args] of [
        ["agent_run_status", { run_id: run.run_id }],
        ["agent_run_events", { run_id: run.run_id }],
        ["agent_run_wait", { run_id: run.run_id, timeout_s: 1 }],
        ["agent_run_stop", { run_id: run.run_id }]
      ] as const) {
        h.faults.inject("getOwned", { kind: "busy" })
        const out = yield* h.call(tool, args)
        expect(out.ok ? "answered" : out.code).toBe("bridge.internal")
        expectOpaque(out)
      }
      h.faults.inject("list", { kind: "full" })
      expect((yield* h.call("agent_runs_list", {})).ok).toBe(false)
      // A stalled read answers late, and right.
      h.faults.inject("getOwned", { kind: "stall", ms: 1_500 })
      const t0 = Date.now()
      const view = yield* ok("stalled status", yield* h.call("agent_run_status", { run_id: run.run_id }))
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1_400)
      expect(view.run_id).toBe(run.run_id)
      // A wait whose final read stalls still ends.
      h.faults.inject("eventsBefore", { kind: "stall", ms: 1_500 })
      const waited = yield* ok("wait", yield* h.call("agent_run_wait", { run_id: run.run_id, timeout_s: 1 }))
      expect(waited.run_id).toBe(run.run_id)
      yield* expectIntact(h, run.run_id, "read me [sim:slow=2s,events=10]")
    }).pipe(Effect.scoped))

  for (const generation of ["new", "old"] as const satisfies ReadonlyArray<SimGeneration>) {
    it.live(`a follower whose commits fail or stall retries and loses or repeats nothing (${generation} generation)`, () =>
      Effect.gen(function* () {
        const h = yield* storageHarness({ generation })
        const input = `follow through faults ${generation} [sim:slow=4s,events=40]`
        const run = yield* ok("start", yield* h.call("agent_run", { agent: "hermes", input }))
        yield* eventually(Effect.flatMap(h.call("agent_run_status", { run_id: run.run_id }), (o) => ok("status", o)), (v) => v.last_seq >= 3, "first events")
        const before = h.faults.calls("modify")
        for (const fault of [{ kind: "busy" }, { kind: "full" }, { kind: "stall", ms: 800 }, { kind: "busy" }, { kind: "stall", ms: 500, then: "full" }] as const) {
          h.faults.inject("modify", fault)
        }
        yield* eventually(Effect.sync(() => h.faults.armed()), (n) => n === 0, "every fault fired")
        expect(h.faults.calls("modify") - before).toBeGreaterThanOrEqual(5)
        yield* expectIntact(h, run.run_id, input)
      }).pipe(Effect.scoped))
  }

  it.live("a follower whose commits meet the database server's outage holds its batch and retries in place: no restart, nothing lost", () =>
    Effect.gen(function* () {
      const h = yield* storageHarness()
      const input = "follow through an outage [sim:slow=4s,events=40]"
      const run = yield* ok("start", yield* h.call("agent_run", { agent: "hermes", input }))
      yield* eventually(Effect.flatMap(h.call("agent_run_status", { run_id: run.run_id }), (o) => ok("status", o)), (v) => v.last_seq >= 3, "first events")
      h.faults.inject("modify", { kind: "unavailable" }, 4)
      yield* eventually(Effect.sync(() => h.faults.armed()), (n) => n === 0, "every fault fired")
      yield* expectIntact(h, run.run_id, input)
      expect(h.logs.some((l) => l.includes("holding the batch and retrying"))).toBe(true)
      // Retried in the follower, not by the supervisor's restart (which would re-read Hermes's stream).
      expect(h.logs.filter((l) => l.includes("run follower failed; restarting"))).toEqual([])
    }).pipe(Effect.scoped))

  it.live("a real page limit (SQLITE_FULL) mid-stream stops commits; with space back the run resumes intact", () =>
    Effect.gen(function* () {
      const h = yield* storageHarness()
      const input = "fill the disk [sim:slow=6s,output=160k]"
      const run = yield* ok("start", yield* h.call("agent_run", { agent: "hermes", input }))
      const status = Effect.flatMap(h.call("agent_run_status", { run_id: run.run_id }), (o) => ok("status", o))
      yield* eventually(status, (v) => v.last_seq >= 3, "first events")
      const [pages] = yield* h.sql<{ page_count: number }>`PRAGMA page_count`.pipe(Effect.orDie)
      yield* h.sql.unsafe(`PRAGMA max_page_count = ${pages!.page_count}`).pipe(Effect.orDie)
      // While the disk is full the ledger stands still though Hermes goes on.
      yield* Effect.sleep("600 millis")
      const stuck = (yield* status).last_seq
      const framesThen = simRunOf(h, input)!.frames.length
      yield* Effect.sleep("1200 millis")
      expect((yield* status).last_seq).toBe(stuck)
      expect(simRunOf(h, input)!.frames.length).toBeGreaterThan(framesThen)
      yield* h.sql.unsafe("PRAGMA max_page_count = 1073741823").pipe(Effect.orDie)
      yield* expectIntact(h, run.run_id, input)
    }).pipe(Effect.scoped))
})
