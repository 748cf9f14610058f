/** The simulator's scripting: directive grammar and the plans it produces. */
import { describe, expect, it } from "vitest"
import { parseInput } from "../../src/hermes/sim/directives.ts"
import { fillerText, makePlan, SIM_FAKE_SECRETS, type Step, splitInto } from "../../src/hermes/sim/script.ts"

const emits = (steps: ReadonlyArray<Step>) => steps.filter((s): s is Extract<Step, { _tag: "Emit" }> => s._tag === "Emit")
const plan = (input: string, clarifyAvailable = true) => makePlan(parseInput(input), { clarifyAvailable })
const answer = (steps: ReadonlyArray<Step>) => emits(steps).filter((e) => e.event === "message.delta").map((e) => String(e.fields.delta)).join("")

describe("simulator directives", () => {
  it("parses names, values, several per bracket, anywhere, case-insensitively", () => {
    const p = parseInput("Please [sim:Approval, slow=2s] do it [sim:output=64k][sim:drop=3] now")
    expect(p.errors).toEqual([])
    expect(p.directives).toMatchObject({ approval: true, slowMs: 2000, outputBytes: 65536, dropAfter: 3 })
    expect(p.prompt).toBe("Please do it now")
  })

  it("reads sizes and durations in their units", () => {
    expect(parseInput("[sim:output=2m]").directives.outputBytes).toBe(2 * 1024 * 1024)
    expect(parseInput("[sim:output=100b]").directives.outputBytes).toBe(100)
    expect(parseInput("[sim:output=3]").directives.outputBytes).toBe(3072)
    expect(parseInput("[sim:slow=150]").directives.slowMs).toBe(150)
    expect(parseInput("[sim:clarify=multi]").directives.clarify).toEqual({ multiSelect: true })
    expect(parseInput("[sim:fail=boom]").directives.fail).toBe("boom")
  })

  it("reports unknown directives and bad values, and the run then fails with them", () => {
    const p = parseInput("[sim:nope][sim:events=2][sim:output=lots]")
    expect(p.errors).toHaveLength(3)
    const steps = makePlan(p, { clarifyAvailable: true }).steps
    expect(steps).toEqual([{ _tag: "Fail", error: expect.stringContaining("unknown directive") }])
  })
})

describe("simulator plans", () => {
  it("without directives: a short answer in several small deltas with a tool call, then completion", () => {
    const { steps, gapMs } = plan("What is up?")
    expect(emits(steps).map((e) => e.event).slice(0, 2)).toEqual(["tool.started", "tool.completed"])
    expect(emits(steps).filter((e) => e.event === "message.delta").length).toBeGreaterThan(4)
    expect(answer(steps)).toContain("What is up?")
    expect(steps.at(-1)).toEqual({ _tag: "Complete" })
    expect(gapMs).toBeLessThanOrEqual(1)
  })

  it("events=N emits exactly N events counting the terminal one", () => {
    for (const n of [4, 10, 1000]) expect(emits(plan(`[sim:events=${n}]`).steps).length + 1).toBe(n)
  })

  it("output=N produces exactly N bytes, deltas=N exactly N deltas", () => {
    expect(answer(plan("[sim:output=10k]").steps)).toBe(fillerText(10240))
    expect(fillerText(10240)).toHaveLength(10240)
    expect(emits(plan("[sim:deltas=37]").steps).filter((e) => e.event === "message.delta")).toHaveLength(37)
  })

  it("secrets: every fake secret is in the answer and none sits whole inside one delta", () => {
    const steps = plan("[sim:secrets]").steps
    const text = answer(steps)
    for (const s of SIM_FAKE_SECRETS) {
      expect(text).toContain(s)
      for (const e of emits(steps)) expect(String(e.fields.delta ?? "")).not.toContain(s)
    }
  })

  it("clarify only where the build and the run allow it", () => {
    expect(plan("[sim:clarify]").steps.some((s) => s._tag === "Clarify")).toBe(true)
    const without = plan("[sim:clarify]", false).steps
    expect(without.some((s) => s._tag === "Clarify")).toBe(false)
    expect(answer(without)).toContain("clarification unavailable")
  })

  it("approval, failure, drop and restart put their steps where documented", () => {
    expect(plan("[sim:approval]").steps.some((s) => s._tag === "Approval")).toBe(true)
    expect(plan("[sim:fail=x]").steps.at(-1)).toEqual({ _tag: "Fail", error: "x" })
    expect(plan("[sim:drop=2]").dropAfterFrames).toBe(2)
    expect(plan("[sim:events=10,drop]").dropAfterFrames).toBe(5)
    expect(plan("plain").dropAfterFrames).toBeNull()
    const restart = plan("[sim:events=10,restart]").steps
    expect(restart.findIndex((s) => s._tag === "Restart")).toBe(5)
  })

  it("slow spreads the run over the asked time", () => {
    const p = plan("[sim:slow=1000]")
    expect(p.gapMs * (emits(p.steps).length + 1)).toBeCloseTo(1000)
  })

  it("splitInto keeps every character, in order, in non-empty pieces", () => {
    const pieces = splitInto("abcdefghij", 3)
    expect(pieces.join("")).toBe("abcdefghij")
    expect(pieces).toHaveLength(3)
    expect(splitInto("ab", 5)).toEqual(["a", "b"])
  })
})
