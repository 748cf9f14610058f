/**
 * One SSE subscriber of a simulated run, with both generations' quirks: older builds hand the
 * single consumer its buffer and drop it when the consumer leaves; newer builds number frames,
 * replay after `Last-Event-ID`, and cut a subscriber that falls too far behind. Idle streams get
 * `: keepalive` comments; after the terminal event comes `: stream closed`, then EOF.
 */
import { Effect, Stream } from "effect"
import type { Frame, SimRun, Subscriber } from "./run.ts"
import type { SimState } from "./state.ts"
import { sseClosed, sseFrame, sseKeepalive } from "./wire.ts"

/**
 * The byte stream of one subscriber. `cut` destroys the underlying connection (the HTTP layer
 * provides it); the subscriber is registered on the run while the stream runs.
 */
export const subscriberStream = (
  state: SimState,
  run: SimRun,
  afterSeq: number | null,
  cut: () => void
): Stream.Stream<Uint8Array> =>
  Stream.suspend(() => {
    const isNew = state.isNew
    const keepaliveMs = state.options.keepaliveMs
    // Newer builds keep every frame, so a frame's index is its seq; older builds start the buffer at 0.
    let cursor = isNew && afterSeq !== null ? afterSeq + 1 : 0
    let lastWrite = Date.now()
    let left = false
    const leave = () => {
      if (left) return
      left = true
      run.subscribers.delete(subscriber)
      // Older builds: the queue belongs to its one consumer and disappears with it.
      if (!isNew) {
        run.bufferDropped = true
        run.frames = []
      }
    }
    const subscriber: Subscriber = {
      destroy: () => {
        leave()
        cut()
      }
    }
    run.subscribers.add(subscriber)
    run.consumed = true

    const take = (): ReadonlyArray<Frame> => {
      if (left) return []
      if (isNew && run.frames.length - cursor > state.options.slowSubscriberLimit) {
        subscriber.destroy()
        return []
      }
      const out = run.frames.slice(cursor)
      cursor = Math.max(cursor, run.frames.length)
      return out
    }

    const frames = run.version.changes.pipe(
      Stream.mapConcat(() => take()),
      Stream.takeUntil((f) => f.terminal),
      Stream.map((f) => sseFrame(f.json, isNew ? f.seq : null)),
      Stream.concat(Stream.succeed(sseClosed)),
      Stream.tap(() => Effect.sync(() => { lastWrite = Date.now() }))
    )
    const keepalive = Stream.tick(keepaliveMs).pipe(
      Stream.drop(1),
      Stream.filter(() => Date.now() - lastWrite >= keepaliveMs * 0.9),
      Stream.as(sseKeepalive)
    )
    return Stream.merge(frames, keepalive, { haltStrategy: "left" }).pipe(
      Stream.encodeText,
      Stream.ensuring(Effect.sync(leave))
    )
  })
