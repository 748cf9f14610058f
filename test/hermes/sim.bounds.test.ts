/**
 * The simulator keeps what Hermes keeps, and no more (src/hermes/sim/state.ts `sweep`): terminal
 * runs for 3600 s, at most `maxTerminalRuns` of them (longest-ended first out), an ended run's
 * unread event buffer for 300 s after its end, idempotency records for a day and at most
 * MAX_IDEMPOTENCY_RECORDS. A run someone is reading is never touched, and a live run never. Time is
 * passed in explicitly, so every boundary is exact.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { resolveSimOptions, type SimOptions } from "../../src/hermes/sim/options.ts"
import { makeRun, type SimRun } from "../../src/hermes/sim/run.ts"
import { MAX_IDEMPOTENCY_RECORDS, SimState } from "../../src/hermes/sim/state.ts"

const T0 = 1_900_000_000_000
const HOUR = 3_600_000

const stateWith = (o: SimOptions = {}) => new SimState(resolveSimOptions(o))

/** A run started at T0 with one event; ended `endedAt` (ms since epoch) unless null. */
const addRun = (state: SimState, id: string, endedAt: number | null): SimRun => {
  const run = Effect.runSync(makeRun({ id, profile: "default", input: "x", sessionId: id, model: "m", now: T0, visibleAt: T0 }))
  run.frames.push({ seq: 0, json: "{}", terminal: endedAt !== null })
  if (endedAt !== null) {
    run.status = "completed"
    run.endedAt = endedAt
  } else run.status = "running"
  state.runs.set(id, run)
  return run
}

describe("the simulator's bounds", () => {
  it("forgets a terminal run 3600 s after its end, not before; a live run never", () => {
    const state = stateWith()
    addRun(state, "old", T0)
    addRun(state, "young", T0 + 2)
    addRun(state, "live", null)
    state.sweep(T0 + HOUR)
    expect([...state.runs.keys()].sort()).toEqual(["live", "old", "young"])
    state.sweep(T0 + HOUR + 1)
    expect([...state.runs.keys()].sort()).toEqual(["live", "young"])
    state.sweep(T0 + 100 * HOUR)
    expect([...state.runs.keys()]).toEqual(["live"])
    expect(state.find("default", "old", T0 + HOUR + 1)).toBeUndefined()
  })

  it("keeps at most maxTerminalRuns ended runs, the longest-ended going first", () => {
    const state = stateWith({ maxTerminalRuns: 5 })
    for (let i = 0; i < 12; i++) addRun(state, `r${String(i).padStart(2, "0")}`, T0 + i)
    addRun(state, "live", null)
    state.sweep(T0 + 20)
    expect([...state.runs.keys()].sort()).toEqual(["live", "r07", "r08", "r09", "r10", "r11"])
  })

  it("defaults to 500 ended runs", () => {
    const state = stateWith()
    for (let i = 0; i < 620; i++) addRun(state, `r${i}`, T0 + i)
    state.sweep(T0 + 1000)
    expect(state.runs.size).toBe(500)
    expect(state.runs.has("r119")).toBe(false)
    expect(state.runs.has("r120")).toBe(true)
  })

  it("never forgets or empties a run someone is reading", () => {
    const state = stateWith({ maxTerminalRuns: 0 })
    const read = addRun(state, "read", T0)
    read.subscribers.add({} as never)
    addRun(state, "unread", T0)
    state.sweep(T0 + 2 * HOUR)
    expect([...state.runs.keys()]).toEqual(["read"])
    expect(read.frames).toHaveLength(1)
  })

  for (const generation of ["old", "new"] as const) {
    it(`drops an ended run's unread event buffer 300 s after its end; the status stays (${generation} build)`, () => {
      const state = stateWith({ generation })
      const run = addRun(state, "r", T0)
      state.sweep(T0 + 300_000)
      expect(run.frames).toHaveLength(1)
      expect(run.bufferDropped || run.eventsLost).toBe(false)
      state.sweep(T0 + 300_001)
      expect(run.frames).toHaveLength(0)
      // What the events route answers 404 on: an older build's dropped buffer, a newer build's lost events.
      expect(generation === "old" ? run.bufferDropped : run.eventsLost).toBe(true)
      expect(state.find("default", "r", T0 + 300_001)?.status).toBe("completed")
    })
  }

  it("keeps a live run's buffer however long it runs", () => {
    const state = stateWith()
    const run = addRun(state, "live", null)
    state.sweep(T0 + 10 * HOUR)
    expect(run.frames).toHaveLength(1)
  })

  it("forgets idempotency records after a day, and keeps at most MAX_IDEMPOTENCY_RECORDS", () => {
    const state = stateWith()
    state.idempotencyStore("default", "k-old", "f", "run_a", T0)
    state.idempotencyStore("default", "k-new", "f", "run_b", T0 + HOUR)
    expect(state.idempotencyLookup("default", "k-old", "f", T0 + 2 * HOUR)).toEqual({ _tag: "Replay", runId: "run_a" })
    state.sweep(T0 + 24 * HOUR + 1)
    expect(state.idempotencyRecords).toBe(1)
    expect(state.idempotencyLookup("default", "k-new", "f", T0 + 24 * HOUR + 1)).toEqual({ _tag: "Replay", runId: "run_b" })

    const many = stateWith()
    for (let i = 0; i < MAX_IDEMPOTENCY_RECORDS + 50; i++) many.idempotencyStore("default", `k${i}`, "f", `run_${i}`, T0 + i)
    many.sweep(T0 + 2 * HOUR)
    expect(many.idempotencyRecords).toBe(MAX_IDEMPOTENCY_RECORDS)
    expect(many.idempotencyLookup("default", "k49", "f", T0 + HOUR)).toEqual({ _tag: "New" })
    expect(many.idempotencyLookup("default", "k50", "f", T0 + HOUR)).toEqual({ _tag: "Replay", runId: "run_50" })
  })

  it("sweeps on its own, at most once a second, from lookups", () => {
    const state = stateWith({ maxTerminalRuns: 1 })
    addRun(state, "a", T0)
    state.find("default", "a", T0 + 10) // the first lookup sweeps: one ended run, within the bound
    addRun(state, "b", T0 + 20)
    state.find("default", "b", T0 + 500)
    expect(state.runs.size).toBe(2) // less than a second since the last sweep
    state.find("default", "b", T0 + 1010)
    expect([...state.runs.keys()]).toEqual(["b"])
  })

  it("refuses a bound that is not a whole number", () => {
    expect(() => resolveSimOptions({ maxTerminalRuns: -1 })).toThrow(/maxTerminalRuns/)
    expect(() => resolveSimOptions({ maxTerminalRuns: 1.5 })).toThrow(/maxTerminalRuns/)
  })
})
