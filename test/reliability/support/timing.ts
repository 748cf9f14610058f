/**
 * Comparing the latency of two kinds of call (a found-but-foreign id and an unknown one) in a way
 * that holds on a loaded 2-core machine: the two are interleaved pair by pair in random order, so
 * load drift hits both alike, and judged by the median of the per-pair differences, which ignores
 * the outliers a busy machine produces. "Within noise" is a generous bound: that median difference
 * under half the faster kind's median (a factor of 1.5), or under a millisecond (below what a
 * network caller can resolve through HTTP anyway). Not the two kinds' own medians: on a loaded
 * machine each call lands in a fast or a slow mode (1.7 ms or 10 ms with both cores busy), and two
 * medians of 200 such calls can fall in different modes (2.7 against 6.0 ms) while the pairs,
 * measured side by side, differ by a tenth of a millisecond. A path that costs more for one kind
 * shifts every pair alike, and so the median of the differences.
 */
import { performance } from "node:perf_hooks"

export const NOISE_RATIO = 1.5
export const NOISE_FLOOR_MS = 1

export interface LatencyComparison {
  readonly label: string
  readonly samples: number
  readonly foreign: { readonly median: number; readonly p25: number; readonly p75: number }
  readonly unknown: { readonly median: number; readonly p25: number; readonly p75: number }
  /** Median of the per-pair differences (foreign − unknown). */
  readonly pairedMedianDiff: number
  readonly ratio: number
  readonly withinNoise: boolean
  readonly describe: string
}

const quantile = (sorted: ReadonlyArray<number>, q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN
const summary = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return { median: quantile(s, 0.5), p25: quantile(s, 0.25), p75: quantile(s, 0.75) }
}

const timed = async (f: () => Promise<unknown>) => {
  const t0 = performance.now()
  await f()
  return performance.now() - t0
}

export const compareLatencies = async (
  label: string,
  samples: number,
  calls: { readonly foreign: () => Promise<unknown>; readonly unknown: () => Promise<unknown> }
): Promise<LatencyComparison> => {
  // Warm both paths (JIT, prepared statements, connection pool) before measuring.
  for (let i = 0; i < 20; i++) {
    await calls.foreign()
    await calls.unknown()
  }
  const foreign: Array<number> = []
  const unknown: Array<number> = []
  for (let i = 0; i < samples; i++) {
    const foreignFirst = Math.random() < 0.5
    const a = foreignFirst ? await timed(calls.foreign) : await timed(calls.unknown)
    const b = foreignFirst ? await timed(calls.unknown) : await timed(calls.foreign)
    const [f, u] = foreignFirst ? [a, b] : [b, a]
    foreign.push(f)
    unknown.push(u)
  }
  return compareSamples(label, foreign, unknown)
}

/** The judgement of `compareLatencies` over measured samples: `foreign[i]` and `unknown[i]` were taken side by side. */
export const compareSamples = (label: string, foreign: ReadonlyArray<number>, unknown: ReadonlyArray<number>): LatencyComparison => {
  const samples = Math.min(foreign.length, unknown.length)
  const fs = summary(foreign)
  const us = summary(unknown)
  const ratio = Math.max(fs.median, us.median) / Math.min(fs.median, us.median)
  const pairedMedianDiff = summary(Array.from({ length: samples }, (_, i) => foreign[i]! - unknown[i]!)).median
  const spread = Math.abs(pairedMedianDiff)
  const withinNoise = spread < NOISE_FLOOR_MS || spread <= (NOISE_RATIO - 1) * Math.min(fs.median, us.median)
  const f2 = (n: number) => n.toFixed(2)
  return {
    label,
    samples,
    foreign: fs,
    unknown: us,
    pairedMedianDiff,
    ratio,
    withinNoise,
    describe: `${label}: foreign median ${f2(fs.median)} (p25 ${f2(fs.p25)}, p75 ${f2(fs.p75)}), unknown median ${f2(us.median)} (p25 ${f2(us.p25)}, p75 ${f2(us.p75)}), ratio ${ratio.toFixed(3)}, paired median diff ${f2(pairedMedianDiff)}`
  }
}
