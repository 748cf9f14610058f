/**
 * The Auth change watch as the edge runs it, for tests: every change lands in a queue once the
 * watcher has it. Auth remembers keys only once the watch has its baseline (its first poll), so
 * this waits three poll intervals before handing the queue back.
 */
import { Duration, Effect, Queue, Stream } from "effect"
import { Auth } from "../../../src/services/auth/Auth.ts"

/** How often the tests' watch polls for another process's commits. */
export const WATCH_EVERY = Duration.millis(20)

export const watchAuth = Effect.gen(function* () {
  const auth = yield* Auth
  const heard = yield* Queue.unbounded<void>()
  const fiber = yield* auth.changes(WATCH_EVERY).pipe(Stream.runForEach(() => Queue.offer(heard, undefined)), Effect.fork)
  yield* Effect.sleep(Duration.times(WATCH_EVERY, 3))
  return { heard, fiber }
})
