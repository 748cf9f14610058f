/**
 * The pieces of `npm run bench:scale` (scripts/benchScaleParts.ts) that decide its figures: the
 * check that finds a streamed run's lost or reordered events, the parked-run check, the RSS-per-run
 * arithmetic over several processes, CPU from a /proc stat line, the percentile, and the sizes and
 * flags. No timing here: the bench prints figures, nothing asserts on them.
 */
import { describe, expect, it } from "vitest"
import { spawnSync } from "node:child_process"
import { cpuMs, cpuMsOfStat, parkedInput, parkedRunProblems, parseScaleArgs, percentile, perRunKiB, rssKiB, SIZES, split, streamedRunProblems, streamInput, streamText } from "../../scripts/benchScaleParts.ts"
import { parseInput } from "../../src/hermes/sim/directives.ts"
import { makePlan } from "../../src/hermes/sim/script.ts"

const size = { ...SIZES.small, outputBytes: 100, deltas: 10 }
const expected = streamText(size)

/** A well-formed stored run: started, a tool pair, the text in `pieces` message.text events, completed. */
const storedRun = (pieces: ReadonlyArray<string>) => {
  const types = ["run.started", "tool.started", "tool.completed", ...pieces.map(() => "message.text"), "run.completed"]
  let k = 0
  return types.map((type, i) => ({ seq: i + 1, type, data: type === "message.text" ? { text: pieces[k++] } : {} }))
}
const pieces = [expected.slice(0, 30), expected.slice(30, 70), expected.slice(70)]

describe("streamedRunProblems", () => {
  it("passes a run whose events are contiguous, end once, and carry the simulator's text", () => {
    const events = storedRun(pieces)
    expect(streamedRunProblems({ status: "completed", lastSeq: events.length, output: expected, events }, expected)).toEqual([])
  })

  it("finds a lost event (a gap in seq), a lost tail, a reordered text and a short output", () => {
    const events = storedRun(pieces)
    const gap = events.filter((e) => e.seq !== 5)
    expect(streamedRunProblems({ status: "completed", lastSeq: events.length, output: expected, events: gap }, expected).join("; ")).toMatch(/seq|events stored/)
    const tail = events.slice(0, -1)
    expect(streamedRunProblems({ status: "running", lastSeq: tail.length, output: expected, events: tail }, expected).join("; ")).toMatch(/status running.*no terminal event|no terminal event/)
    const swapped = storedRun([pieces[1]!, pieces[0]!, pieces[2]!])
    expect(streamedRunProblems({ status: "completed", lastSeq: swapped.length, output: expected, events: swapped }, expected).join("; ")).toMatch(/events' text/)
    expect(streamedRunProblems({ status: "completed", lastSeq: events.length, output: expected.slice(1), events }, expected).join("; ")).toMatch(/output 99 bytes/)
  })

  it("knows the text a streamed input makes the simulator answer", () => {
    const plan = makePlan(parseInput(streamInput(size, 7)), { clarifyAvailable: true })
    const text = plan.steps.flatMap((s) => (s._tag === "Emit" && s.event === "message.delta" ? [String(s.fields["delta"])] : [])).join("")
    expect(text).toBe(expected)
    expect(plan.steps.filter((s) => s._tag === "Emit" && s.event === "message.delta")).toHaveLength(size.deltas)
  })
})

describe("parkedRunProblems", () => {
  it("passes a parked approval run and a silent one; finds an ended or unasked one", () => {
    const approval = [{ seq: 1, type: "run.started", data: {} }, { seq: 2, type: "tool.started", data: {} }, { seq: 3, type: "approval.request", data: {} }]
    expect(parkedRunProblems({ status: "waiting_for_approval", lastSeq: 3, events: approval }, true)).toEqual([])
    expect(parkedRunProblems({ status: "running", lastSeq: 1, events: approval.slice(0, 1) }, false)).toEqual([])
    expect(parkedRunProblems({ status: "running", lastSeq: 1, events: approval.slice(0, 1) }, true).join("; ")).toMatch(/no approval.request/)
    const ended = [...approval, { seq: 4, type: "run.failed", data: {} }]
    expect(parkedRunProblems({ status: "failed", lastSeq: 4, events: ended }, true).join("; ")).toMatch(/ended while parked/)
  })

  it("parks half on an approval and half on a step hours long", () => {
    const first = makePlan(parseInput(parkedInput(0)), { clarifyAvailable: true })
    expect(first.steps.some((s) => s._tag === "Approval")).toBe(true)
    const second = makePlan(parseInput(parkedInput(1)), { clarifyAvailable: true })
    expect(parseInput(parkedInput(1)).errors).toEqual([])
    expect(second.gapMs).toBeGreaterThan(3_600_000)
  })
})

describe("figures", () => {
  it("RSS per run is the growth of all the named processes over the runs, and refuses mismatched readings", () => {
    expect(perRunKiB([100_000, 200_000, 300_000], [110_000, 205_000, 305_000], 1000)).toBe(20)
    expect(perRunKiB([100_000], [99_000], 100)).toBe(-10)
    expect(perRunKiB([1], [2], 0)).toBeNaN()
    expect(() => perRunKiB([1, 2], [3], 10)).toThrow(/different processes/)
  })

  it("reads user + system CPU from a stat line whose command holds spaces and parentheses", () => {
    const stat = "4242 (node (a b) c) S 1 4242 4242 0 -1 4194560 1234 0 0 0 150 25 0 0 20 0 11 0 100 0 0"
    expect(cpuMsOfStat(stat)).toBe(1750)
    expect(cpuMs(process.pid)).toBeGreaterThan(0)
    expect(rssKiB(process.pid)).toBeGreaterThan(1000)
  })

  it("reads NaN for a process that is gone, rather than throwing (its exit is reported where it is watched)", () => {
    const gone = spawnSync(process.execPath, ["-e", ""]).pid!
    expect(rssKiB(gone)).toBeNaN()
    expect(cpuMs(gone)).toBeNaN()
  })

  it("takes the nearest-rank percentile", () => {
    const xs = Array.from({ length: 100 }, (_, i) => 100 - i)
    expect(percentile(xs, 0.99)).toBe(99)
    expect(percentile(xs, 0.5)).toBe(50)
    expect(percentile([3], 0.99)).toBe(3)
    expect(percentile([], 0.5)).toBeNaN()
  })
})

describe("sizes and flags", () => {
  it("full is the issue's 10,000 live runs from 100 clients, a tenth streaming", () => {
    expect(SIZES.full).toMatchObject({ runs: 10_000, clients: 100, streamShare: 0.1, replicas: 3 })
    expect(split(SIZES.full)).toEqual({ streaming: 1000, parked: 9000 })
  })

  it("reads --settle-s, 0 (no second reading) by default", () => {
    expect(SIZES.full.settleS).toBe(0)
    expect(parseScaleArgs(["--settle-s", "120"]).size.settleS).toBe(120)
    expect(parseScaleArgs(["--settle-s", "0"]).size.settleS).toBe(0)
    expect(() => parseScaleArgs(["--settle-s", "-1"])).toThrow(/positive number/)
  })

  it("takes the size from the flag or the environment, and fields from their flags", () => {
    expect(parseScaleArgs([], {}).name).toBe("full")
    expect(parseScaleArgs([], { BENCH_SCALE_SIZE: "small" }).size).toEqual(SIZES.small)
    const parsed = parseScaleArgs(["--size", "small", "--runs", "500", "--pace-s", "5", "--stores", "pg"])
    expect(parsed.size).toMatchObject({ runs: 500, paceS: 5, clients: SIZES.small.clients })
    expect(parsed.stores).toEqual(["pg"])
  })

  it("refuses a bad size, number, share or store", () => {
    expect(() => parseScaleArgs(["--size", "huge"])).toThrow(/small or full/)
    expect(() => parseScaleArgs(["--runs", "-3"])).toThrow(/positive number/)
    expect(() => parseScaleArgs(["--runs", "many"])).toThrow(/positive number/)
    expect(() => parseScaleArgs(["--stream-share", "1"])).toThrow(/below 1/)
    expect(() => parseScaleArgs(["--stores", "mysql"])).toThrow(/sqlite and\/or pg/)
    expect(() => parseScaleArgs(["--pace-s", "0"])).toThrow(/--pace-s takes a positive number/)
    expect(parseScaleArgs(["--quiet-check-ms", "0"]).size.quietCheckMs).toBe(0)
  })
})
