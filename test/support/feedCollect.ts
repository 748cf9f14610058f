/** The change-feed tests' collector, for either driver: every change of `topic` lands in a queue; subscribed when this returns. */
import { Effect, Queue, Stream } from "effect"
import { type Change, ChangeFeed, type Topic } from "../../src/storage/ChangeFeed.ts"

export const collect = (topic: Topic) =>
  Effect.gen(function* () {
    const feed = yield* ChangeFeed
    const seen = yield* Queue.unbounded<Change>()
    const changes = yield* feed.subscribe(topic)
    yield* changes.pipe(Stream.runForEach((c) => Queue.offer(seen, c)), Effect.forkScoped)
    return seen
  })
