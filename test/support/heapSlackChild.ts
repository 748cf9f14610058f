/**
 * A process that grows a live set the way starting runs do (objects kept for good) while promoting
 * garbage into the old generation (objects that outlive a few scavenges, then die), with the
 * daemon's heap-slack bound of argv[2] MiB (0: V8's own policy), and prints its heap at the end as
 * JSON. test/daemon/heapSlack.test.ts runs it with and without the bound.
 */
import { Effect, Layer } from "effect"
import * as v8 from "node:v8"
import { HeapSlackBounded } from "../../src/daemon/heapSlack.ts"

const slackMiB = Number(process.argv[2] ?? 0)

const program = Effect.promise(async () => {
  const kept: Array<unknown> = []
  // Garbage that lives long enough to be promoted: each slot is overwritten 25 steps later.
  const recent: Array<unknown> = new Array(200_000)
  let slot = 0
  let peak = 0
  for (let step = 0; step < 400; step++) {
    for (let i = 0; i < 2000; i++) kept.push({ a: i, b: `k${step}-${i}`, c: [i, step] })
    for (let i = 0; i < 8000; i++) recent[slot++ % recent.length] = { a: i, b: `g${i}`, c: [i] }
    if (step % 10 === 0) await new Promise((resolve) => setImmediate(resolve))
    peak = Math.max(peak, v8.getHeapStatistics().total_heap_size)
  }
  const heap = v8.getHeapStatistics()
  // What is live, after a full collection (the child runs with --expose-gc): the garbage's share of the peak is the rest.
  recent.fill(undefined)
  globalThis.gc?.()
  const liveMiB = v8.getHeapStatistics().used_heap_size / 2 ** 20
  return { kept: kept.length, totalMiB: heap.total_heap_size / 2 ** 20, usedMiB: heap.used_heap_size / 2 ** 20, peakMiB: peak / 2 ** 20, liveMiB }
})

const result = await Effect.runPromise(Effect.scoped(Effect.zipRight(Layer.build(HeapSlackBounded(slackMiB)), program)))
console.log(JSON.stringify(result))
