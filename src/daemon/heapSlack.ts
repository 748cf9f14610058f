/**
 * How much garbage V8 may let pile up in the old generation before its next full collection,
 * bounded in MiB (`bridge.heap_slack_mib`) rather than left to V8's own factor.
 *
 * Why: after each full collection V8 lets the old generation grow to a factor of what survived
 * before it collects again, a factor of up to 4 when the heap's limit is 2 GiB or more (Node sets
 * the limit from the machine's memory, so on most boxes). For a daemon holding thousands of parked
 * runs that slack is most of its RSS: at 2,940 parked runs 180 KiB of RSS a run, against about 70
 * of live heap (docs/PERFORMANCE.md "Heap slack"). A fixed small factor bounds it, but makes a small
 * heap that allocates fast (hundreds of streamed runs) collect far more often: a fixed 20% cost 31%
 * more CPU on 500 streamed runs. So the bound is in MiB: after each full collection the next one's
 * growth is set to the slack over what is live (never under 10%), and left to V8 while that is over
 * what V8 would allow anyway (300%). A small heap keeps V8's own policy; a large one collects once a
 * bounded amount of garbage has piled up.
 *
 * V8 computes the next collection's limit at the end of each full collection, from the flag as it
 * is then; this sets the flag right after each one (a `gc` performance entry), so the bound follows
 * the live size one collection late, which a heap that grows by runs keeps up with. Nothing wakes
 * the process while it collects nothing: idle stays idle.
 */
import { Effect, Layer } from "effect"
import { constants, PerformanceObserver } from "node:perf_hooks"
import * as v8 from "node:v8"

/** The least growth ever set: below it a large heap would collect again almost at once. */
export const MIN_GROWTH_PERCENT = 10
/** V8's own factor is at most 4 (300% growth): a bound above that leaves V8's policy as it is. */
export const V8_MAX_GROWTH_PERCENT = 300

/** The growth of the old generation allowed before the next full collection, in percent; 0: V8's own. */
export const growthPercentFor = (slackMiB: number, liveBytes: number): number => {
  if (slackMiB <= 0 || liveBytes <= 0) return 0
  const percent = Math.ceil(((slackMiB * 2 ** 20) / liveBytes) * 100)
  return percent >= V8_MAX_GROWTH_PERCENT ? 0 : Math.max(MIN_GROWTH_PERCENT, percent)
}

/** Young objects die or move on at the next scavenge: what a full collection leaves is the rest. */
const YOUNG_SPACES = new Set(["new_space", "new_large_object_space"])

/** The bytes in the old generation now (right after a full collection: what it kept). */
export const oldGenerationBytes = (): number =>
  v8
    .getHeapSpaceStatistics()
    .filter((space) => !YOUNG_SPACES.has(space.space_name))
    .reduce((sum, space) => sum + space.space_used_size, 0)

const growthFlag = (percent: number) => `--heap-growing-percent=${percent}`

const isFullCollection = (entry: PerformanceEntry): boolean =>
  (entry as PerformanceEntry & { readonly detail?: { readonly kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR

/**
 * Bounds the old generation's slack to `slackMiB` for the layer's lifetime (the daemon's); 0 leaves
 * V8's policy alone. V8's own policy comes back when the layer is released. `setFlags` is V8's
 * (a test records what would be set instead).
 */
export const HeapSlackBounded = (slackMiB: number, setFlags: (flags: string) => void = v8.setFlagsFromString): Layer.Layer<never> =>
  slackMiB <= 0
    ? Layer.empty
    : Layer.scopedDiscard(
        Effect.acquireRelease(
          Effect.sync(() => {
            let current = 0
            const follow = () => {
              const next = growthPercentFor(slackMiB, oldGenerationBytes())
              if (next !== current) setFlags(growthFlag(next))
              current = next
            }
            const observer = new PerformanceObserver((list) => {
              if (list.getEntries().some(isFullCollection)) follow()
            })
            observer.observe({ entryTypes: ["gc"] })
            follow()
            return observer
          }),
          (observer) =>
            Effect.sync(() => {
              observer.disconnect()
              setFlags(growthFlag(0))
            })
        )
      )
