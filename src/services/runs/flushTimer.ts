/**
 * One timer for the flush deadlines of many batch consumers (`batches.ts`): every run a follower
 * streams has its text wait for "the short timer", and at twenty deltas a second per run a 50 ms
 * window holds about one delta, so a timer of each run's own (a fiber racing each take against a
 * timeout) cost two forked fibers and a Node timer per streamed event. Here a consumer with items
 * buffered asks for a deadline one interval from now; one fiber sleeps until the earliest deadline
 * and wakes every consumer whose deadline has passed.
 *
 * Deadlines are the timer's clock plus its one interval, so they arrive in order and a FIFO holds
 * them. The timer is judged by the clock alone: a sleep that ends early (a Node timer can end a
 * millisecond before `Date.now` reads its end) finds the head not yet due and sleeps the rest, so no
 * deadline is missed or fired early. While no consumer has a deadline there is no fiber and no
 * Node timer (an idle daemon does not wake for it). A consumer's deadline is cancelled when its
 * batch goes out early or it ends; the fiber skips cancelled ones and ends once none is left.
 *
 * The fiber is a daemon fiber forked by the consumer that asks first (it reads that fiber's
 * `Clock`, so a test's `TestClock` drives it). It never waits on a consumer: `wake` must not block.
 */
import { Clock, Duration, Effect } from "effect"

export interface FlushDeadline {
  /** True once the deadline passed by the timer's clock (set before `wake` is called). */
  readonly due: boolean
  /** No wake-up wanted any more: the batch went out early, or the consumer ended. */
  cancel(): void
}

export interface FlushTimer {
  /** A deadline one interval from now; `wake` is called once when it passes, on the timer's fiber (it must not block). */
  readonly after: (wake: () => void) => Effect.Effect<FlushDeadline>
}

class Deadline implements FlushDeadline {
  due = false
  cancelled = false
  constructor(readonly at: number, readonly wake: () => void) {}
  cancel() {
    this.cancelled = true
  }
}

/** Above this many spent entries at the head of the FIFO, they are dropped from its array. */
const COMPACT_AFTER = 1024

export const makeFlushTimer = (interval: Duration.DurationInput): FlushTimer => {
  const intervalMs = Duration.toMillis(interval)
  let queue: Array<Deadline> = []
  let head = 0
  let running = false

  const fire = Effect.gen(function* () {
    for (;;) {
      while (head < queue.length && queue[head]!.cancelled) head += 1
      if (head === queue.length) {
        // In the same step as the check: a deadline asked for after it starts a new fiber.
        queue = []
        head = 0
        running = false
        return
      }
      const now = yield* Clock.currentTimeMillis
      const first = queue[head]!
      if (first.at > now) {
        yield* Effect.sleep(first.at - now)
        continue
      }
      while (head < queue.length && queue[head]!.at <= now) {
        const d = queue[head]!
        head += 1
        if (!d.cancelled) {
          d.due = true
          d.wake()
        }
      }
      if (head > COMPACT_AFTER && head * 2 > queue.length) {
        queue = queue.slice(head)
        head = 0
      }
    }
  }).pipe(Effect.onInterrupt(() => Effect.sync(() => { running = false })))

  return {
    after: (wake) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const deadline = new Deadline(now + intervalMs, wake)
        queue.push(deadline)
        if (running) return Effect.succeed(deadline)
        running = true
        return Effect.as(Effect.forkDaemon(fire), deadline)
      })
  }
}
