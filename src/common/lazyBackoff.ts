/**
 * A backoff whose schedule is driven from its first step, not from the moment it is made. A
 * `Schedule.driver` (or `Effect.retry`, which makes one up front) holds its state, a `Ref` and
 * closures for as long as its owner lives; a run's follower and its follow each own a backoff and
 * live as long as the run, hours for a parked one, though almost no run ever fails. Made lazily, a
 * backoff that never steps holds nothing but two closures (issue 41: the two were about 9 KiB of a
 * parked run's 69).
 */
import { type Option, Effect, Schedule } from "effect"

export interface LazyBackoff<Out, In, R> {
  /** Waits as the schedule says after `input`; fails once the schedule is done. */
  readonly next: (input: In) => Effect.Effect<Out, Option.Option<never>, R>
  /** Drops the schedule's state: the next step starts it afresh (as `ScheduleDriver.reset`). */
  readonly reset: Effect.Effect<void>
}

export const lazyBackoff = <Out, In, R>(schedule: Schedule.Schedule<Out, In, R>): LazyBackoff<Out, In, R> => {
  let driver: Schedule.ScheduleDriver<Out, In, R> | null = null
  return {
    next: (input) =>
      Effect.suspend(() =>
        driver === null
          ? Effect.flatMap(Schedule.driver(schedule), (made) => {
              driver = made
              return made.next(input)
            })
          : driver.next(input)
      ),
    reset: Effect.sync(() => {
      driver = null
    })
  }
}
