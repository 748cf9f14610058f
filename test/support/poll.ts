/**
 * The one polling loop of the Promise-side tests (the Effect-side one is `eventually` in
 * test/runs/support/harness.ts), and the one sleep: `node:timers/promises`'s.
 *
 * `until` reads a value until a condition holds on it, bounded in wall time (generous by default:
 * a loaded laptop is slow, and the bound is there to end a wedged test, not to time one). Past the
 * bound it throws, naming what it waited for and the last value it read, so a failure says more
 * than "condition not reached". A negative check ("nothing arrives") is not a poll: wait a fixed
 * time with `sleep`, then assert once.
 */
import { setTimeout as sleep } from "node:timers/promises"

export { sleep }

export interface UntilOptions {
  /** What is waited for, for the failure's message. */
  readonly what?: string
  /** The bound in wall time; 20 s unless said. */
  readonly withinMs?: number
  /** The pause between two reads; 50 ms unless said. */
  readonly everyMs?: number
}

const shown = (value: unknown): string => {
  try {
    return (JSON.stringify(value) ?? String(value)).slice(0, 300)
  } catch {
    return String(value).slice(0, 300)
  }
}

/** Reads `read` until `done` holds on its value, which it returns; throws past `withinMs`. */
export const until = async <A>(read: () => A | Promise<A>, done: (a: A) => boolean, options: UntilOptions = {}): Promise<A> => {
  const withinMs = options.withinMs ?? 20_000
  const deadline = Date.now() + withinMs
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) {
      throw new Error(`${options.what ?? "condition"}: not reached within ${withinMs} ms (last: ${shown(value)})`)
    }
    await sleep(options.everyMs ?? 50)
  }
}

/** Reads `read` until it gives a value (not undefined), which it returns; throws past `withinMs`. */
export const untilDefined = async <A>(read: () => A | undefined | Promise<A | undefined>, options: UntilOptions = {}): Promise<A> =>
  (await until(read, (a) => a !== undefined, options)) as A
