/**
 * "None hangs", made checkable: a promise that must settle within a bound, or the test fails
 * naming what hung. Bounds are generous ceilings for a loaded machine, never speed assertions.
 */
export const bounded = <A>(what: string, ms: number, promise: Promise<A>): Promise<A> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const ceiling = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms)
  })
  return Promise.race([promise, ceiling]).finally(() => clearTimeout(timer))
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Polls `read` until `done` holds, every `everyMs`, at most `withinMs`; returns the last value. */
export const eventually = async <A>(what: string, withinMs: number, read: () => Promise<A>, done: (a: A) => boolean, everyMs = 200): Promise<A> => {
  const deadline = Date.now() + withinMs
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${withinMs} ms (last: ${JSON.stringify(value).slice(0, 300)})`)
    await sleep(everyMs)
  }
}
