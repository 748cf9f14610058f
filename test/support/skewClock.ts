/**
 * A clock that runs in real time but can be moved forward: `advance("8 days")` makes every reader
 * of Effect's Clock see a later time at once and wakes every Clock.sleep that is now due. Unlike the
 * TestClock, time still flows, so a whole daemon (HTTP, timeouts, flush timers) keeps working while
 * its retention sweep believes days went by. Install it with `layer` (Layer.setClock).
 */
import { Clock, Duration, Effect, Layer } from "effect"

/** setTimeout's longest delay; longer sleeps re-arm when it fires. */
const MAX_TIMER_MS = 2 ** 31 - 1

export interface SkewClock {
  readonly clock: Clock.Clock
  readonly layer: Layer.Layer<never>
  /** Moves the clock forward (never back). */
  readonly advance: (by: Duration.DurationInput) => void
  /** How far ahead of real time the clock is, in milliseconds. */
  readonly skewMs: () => number
}

interface Sleeper {
  readonly due: number
  timer: ReturnType<typeof setTimeout> | undefined
  readonly wake: () => void
}

export const makeSkewClock = (): SkewClock => {
  let skew = 0
  const sleepers = new Set<Sleeper>()
  const now = () => Date.now() + skew

  /** Wakes the sleeper if it is due, else sets a real timer for the rest. */
  const check = (s: Sleeper) => {
    if (s.timer !== undefined) clearTimeout(s.timer)
    s.timer = undefined
    const left = s.due - now()
    if (left <= 0) return s.wake()
    if (Number.isFinite(left)) s.timer = setTimeout(() => check(s), Math.min(left, MAX_TIMER_MS))
  }

  const sleep = (duration: Duration.Duration): Effect.Effect<void> =>
    Effect.async<void>((resume) => {
      const sleeper: Sleeper = {
        due: now() + Duration.toMillis(duration),
        timer: undefined,
        wake: () => {
          sleepers.delete(sleeper)
          resume(Effect.void)
        }
      }
      sleepers.add(sleeper)
      check(sleeper)
      return Effect.sync(() => {
        if (sleeper.timer !== undefined) clearTimeout(sleeper.timer)
        sleepers.delete(sleeper)
      })
    })

  const clock: Clock.Clock = {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: now,
    currentTimeMillis: Effect.sync(now),
    unsafeCurrentTimeNanos: () => BigInt(now()) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(now()) * 1_000_000n),
    sleep
  }

  return {
    clock,
    layer: Layer.setClock(clock),
    advance: (by) => {
      skew += Math.max(0, Duration.toMillis(Duration.decode(by)))
      for (const s of [...sleepers]) check(s)
    },
    skewMs: () => skew
  }
}
