/**
 * "None hangs", made checkable: a promise that must settle within a bound, or the test fails
 * naming what hung. Bounds are generous ceilings for a loaded machine, never speed assertions.
 */
import { sleep, until } from "../../support/poll.ts"
export const bounded = <A>(what: string, ms: number, promise: Promise<A>): Promise<A> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const ceiling = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms)
  })
  return Promise.race([promise, ceiling]).finally(() => clearTimeout(timer))
}

export { sleep }

/** Polls `read` until `done` holds, every `everyMs`, at most `withinMs` (test/support/poll.ts's loop). */
export const eventually = <A>(what: string, withinMs: number, read: () => Promise<A>, done: (a: A) => boolean, everyMs = 200): Promise<A> =>
  until(read, done, { what, withinMs, everyMs })
