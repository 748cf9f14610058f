/**
 * The judgement of the probe-timing test (`support/timing.ts`): what a loaded machine does to two
 * kinds of call that cost the same must pass, a path that costs more for one kind must not.
 */
import { describe, expect, it } from "vitest"
import { compareSamples } from "./support/timing.ts"

/** `n` calls, each fast (`fast` ms) or slow (`slow` ms) as `slowAt(i)` says. */
const modes = (n: number, fast: number, slow: number, slowAt: (i: number) => boolean) => Array.from({ length: n }, (_, i) => (slowAt(i) ? slow : fast))

describe("probe timing: foreign against unknown ids", () => {
  it("two kinds that cost the same pass when a loaded machine puts their medians in different modes", () => {
    // Both cores busy: a pair lands fast or slow together, and 55% of the pairs are slow, so the
    // medians of each side alone fall on either side of the divide by chance. Here: foreign's
    // slow pairs are 0..109, unknown's own slow calls lag by 20 positions, so the sides differ
    // in 20 pairs of 200 and agree in the rest.
    const foreign = modes(200, 1.7, 10, (i) => i < 110)
    const unknown = modes(200, 1.7, 10, (i) => i >= 20 && i < 110)
    const r = compareSamples("same cost", foreign, unknown)
    expect(r.foreign.median).toBe(10)
    expect(r.unknown.median).toBe(1.7)
    expect(r.withinNoise, r.describe).toBe(true)
  })

  it("a kind that costs 3 ms more in every pair fails, whatever the load", () => {
    const unknown = modes(200, 1.7, 10, (i) => i % 3 === 0)
    const foreign = unknown.map((t) => t + 3)
    expect(compareSamples("leaks", foreign, unknown).withinNoise).toBe(false)
    expect(compareSamples("leaks the other way", unknown, foreign).withinNoise).toBe(false)
  })

  it("a difference under a millisecond passes; over half the faster median and a millisecond fails", () => {
    const base = modes(200, 0.6, 0.6, () => false)
    expect(compareSamples("0.5 ms", base.map((t) => t + 0.5), base).withinNoise).toBe(true)
    const slowBase = modes(200, 4, 4, () => false)
    expect(compareSamples("1.9 ms on 4 ms", slowBase.map((t) => t + 1.9), slowBase).withinNoise).toBe(true)
    expect(compareSamples("2.1 ms on 4 ms", slowBase.map((t) => t + 2.1), slowBase).withinNoise).toBe(false)
  })
})
