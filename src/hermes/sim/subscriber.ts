/**
 * One SSE subscriber of a simulated run, with both generations' quirks: older builds hand the
 * consumer its buffer (a second concurrent one shares the same queue) and drop it when a consumer
 * leaves; newer builds number frames,
 * replay after `Last-Event-ID`, and cut a subscriber that falls too far behind. Idle streams get
 * `: keepalive` comments; after the terminal event comes `: stream closed`, then EOF.
 *
 * A subscriber whose connection died (the client went away, or the link broke) is noticed as
 * Hermes notices it (`deadSubscriberNoticedLate`, older builds by default): only at its next
 * write, the next event it takes or a keepalive after `keepaliveMs` idle. Until then it stays
 * registered, so a re-attach gets 200 and shares its queue; it takes the next event, that write
 * fails, the queue is dropped (`leave`), and the re-attached stream sees only keepalives while the
 * run goes on and ends (docs/SIMULATOR.md).
 */
import { Effect, Stream } from "effect"
import type { Frame, SimRun, Subscriber } from "./run.ts"
import type { SimState } from "./state.ts"
import { asciiJson, sseClosed, sseFrame, sseKeepalive, unixSeconds } from "./wire.ts"

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
    // A build that keeps only the last `replayBacklog` frames (the end of the stream takes one
    // place, as in the 0.22 fork): a replay from before the oldest kept one says so first, in a
    // frame without an id, and goes on from there.
    let truncation: string | null = null
    const backlogLimit = state.options.replayBacklog
    if (isNew && backlogLimit !== null) {
      const places = run.frames.length + (run.frames.at(-1)?.terminal === true ? 1 : 0)
      const oldest = Math.max(0, places - backlogLimit)
      if (oldest > cursor) {
        truncation = sseFrame(asciiJson({
          event: "replay.truncated", run_id: run.id, timestamp: unixSeconds(Date.now()), oldest_retained_seq: oldest,
          ...(afterSeq !== null ? { requested_seq: afterSeq } : {})
        }), null)
        cursor = oldest
      }
    }
    let lastWrite = Date.now()
    let left = false
    /** The stream ended as Hermes ends it (after the terminal frame), so the handler knows it is done. */
    let finished = false
    let dead = false
    let deadTimer: ReturnType<typeof setTimeout> | undefined
    const leave = () => {
      if (left) return
      left = true
      if (deadTimer !== undefined) clearTimeout(deadTimer)
      run.subscribers.delete(subscriber)
      // Older builds: the queue belongs to its one consumer and disappears with it.
      if (!isNew) {
        run.bufferDropped = true
        run.frames = []
        run.queueOwner.clear()
      }
    }
    // Frames already published when the subscriber came are a replay, not a live backlog; the
    // backlog is what was published since but not yet handed to the connection.
    const liveFrom = run.frames.length
    let sent = cursor
    const subscriber: Subscriber = {
      destroy: () => {
        leave()
        cut()
      },
      backlog: () => run.frames.length - Math.max(sent, liveFrom),
      isDead: () => dead && !left,
      writeFails: leave
    }
    /** The connection is gone: leave now, or (older builds) at the next write. */
    const connectionGone = () => {
      if (left || finished || !state.options.deadSubscriberNoticedLate) return leave()
      dead = true
      // Its next keepalive is due a keepalive interval after its last write; that write fails too.
      deadTimer = setTimeout(leave, Math.max(0, lastWrite + keepaliveMs - Date.now()))
      deadTimer.unref?.()
    }
    run.subscribers.add(subscriber)
    run.consumed = true

    const queueOwner = (seq: number): Subscriber | undefined => {
      const known = run.queueOwner.get(seq)
      if (known !== undefined && run.subscribers.has(known)) return known
      const waiting = [...run.subscribers]
      const owner = waiting[seq % Math.max(1, waiting.length)]
      if (owner !== undefined) run.queueOwner.set(seq, owner)
      return owner
    }

    let cutting = false
    const take = (): ReadonlyArray<Frame> => {
      if (left || cutting) return []
      let out = run.frames.slice(cursor)
      cursor = Math.max(cursor, run.frames.length)
      // Older builds: every concurrent subscriber reads the one queue, so each frame goes to one
      // of them, in turn (frames are split between them; only one gets the terminal frame).
      if (!isNew) out = out.filter((f) => queueOwner(f.seq) === subscriber)
      const dropSeq = run.dropAt === null || run.dropped ? null : run.dropAt - 1
      if (dropSeq !== null && out.some((f) => f.seq === dropSeq)) {
        // `[sim:drop]`: send up to that frame, then cut the connection (a moment later, so the
        // frame has a chance to leave; frames in flight may still be lost, as on a real link).
        out = out.filter((f) => f.seq <= dropSeq)
        run.dropped = true
        cutting = true
        setTimeout(() => subscriber.destroy(), 20)
      }
      return out
    }

    interface Out {
      readonly text: string
      readonly seq: number | null
    }
    // A cursor already past the terminal frame (a newer build's reconnect with the terminal
    // frame's id, or an id beyond the end) has nothing left to wait for: close, do not idle.
    const pastTheEnd = () => isNew && cursor >= run.frames.length && run.frames.at(-1)?.terminal === true
    const replayed: Stream.Stream<Out> = truncation === null ? Stream.empty : Stream.succeed<Out>({ text: truncation, seq: null })
    const frames: Stream.Stream<Out> = run.version.changes.pipe(
      Stream.takeWhile(() => !pastTheEnd()),
      Stream.mapConcat(() => take()),
      Stream.takeUntil((f) => f.terminal),
      Stream.map((f): Out => ({ text: sseFrame(f.json, isNew ? f.seq : null), seq: f.seq })),
      (live) => Stream.concat(replayed, live),
      Stream.concat(Stream.succeed<Out>({ text: sseClosed, seq: null })),
      // Only on a normal end (a finalizer would also run when the connection dies).
      Stream.concat(Stream.execute(Effect.sync(() => { finished = true })))
    )
    const keepalive = Stream.tick(keepaliveMs).pipe(
      Stream.drop(1),
      Stream.filter(() => Date.now() - lastWrite >= keepaliveMs * 0.9),
      Stream.as<Out>({ text: sseKeepalive, seq: null })
    )
    return Stream.merge(frames, keepalive, { haltStrategy: "left" }).pipe(
      // Pulled by the HTTP writer, which waits for the socket to drain: this is what was sent.
      Stream.tap((o) => Effect.sync(() => {
        lastWrite = Date.now()
        if (o.seq !== null) sent = o.seq + 1
      })),
      Stream.map((o) => o.text),
      Stream.encodeText,
      // Ended before the terminal frame went out: the connection is gone (the sim's own cuts left already).
      Stream.ensuring(Effect.sync(connectionGone))
    )
  })
