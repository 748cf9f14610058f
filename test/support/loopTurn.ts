/**
 * A turn of the event loop, for tests whose work settles through promises alone (in-process calls,
 * the in-memory SQLite, Effect fibers that never wait on I/O): awaited between chunks of such work,
 * it lets the fork read vitest's messages, so the test never holds the loop past the loop guard's
 * bound (loopGuard.ts). `Effect.yieldNow()` is not enough: it yields to Effect's scheduler, which
 * goes on in microtasks.
 */
import { Effect } from "effect"
import { setImmediate as nextTurn } from "node:timers/promises"

/** Resolves after the loop has turned (its check phase), for async code. */
export const loopTurn = (): Promise<void> => nextTurn()

/** The same, as an Effect, for `Effect.gen` tests. */
export const turnLoop: Effect.Effect<void> = Effect.promise(() => nextTurn())

/**
 * For a long loop: a function to await once per step, that turns the loop only when `ms` have passed
 * since its last turn (so a tight loop pays for a turn about ten times a second, not every step).
 */
export const turnEvery = (ms = 100): (() => Promise<void>) => {
  let last = performance.now()
  return async () => {
    if (performance.now() - last < ms) return
    await nextTurn()
    last = performance.now()
  }
}

/** `turnEvery` as an Effect: yield it once per step of a long `Effect.gen` loop. */
export const turnLoopEvery = (ms = 100): Effect.Effect<void> => {
  const step = turnEvery(ms)
  return Effect.promise(step)
}
