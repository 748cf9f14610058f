/**
 * The follower's check of a quiet stream against Hermes's status, only where a check can find
 * something. An older Hermes (0.19, 0.20) notices a dead subscriber only at its next write: a stream
 * opened again while the dead connection is still registered (the bridge restarted, a replica took
 * the run over, or the follow reconnected after a drop) gets 200 and shares the dead one's queue;
 * the next event goes to the dead one, Hermes drops the queue, and the new stream carries only
 * keepalives until the run is long over (docs/RELIABILITY.md, "restart"). Such a stream is
 * *suspect*: once it carried no event for `interval` it is checked with `ended` (Hermes's status,
 * and the ledger), and again every `interval` while it stays quiet; it is checked once at once when
 * it becomes suspect. Keepalives are not events, so they never count as news here.
 *
 * A stream is not suspect when it is the run's first (the bridge started the run and is its only
 * subscriber: every event comes to it, the end included), nor when its frames are numbered: the
 * builds that number their frames (the 0.22 line) give every subscriber every frame and replay what
 * was missed. A stream that dies silently is not this watch's business: the client ends a stream
 * that carried nothing, keepalives included, for 90 s (HermesClientLive's `streamIdleTimeout`), and
 * the follow then reconnects, which makes it suspect. So a run parked for hours on its first stream (or a numbered one)
 * costs no status read and holds no fiber here (issue 41: 10,000 parked runs were 1,000 reads a second).
 *
 * Ticks come every interval while suspect and ask when the last event is a whole interval old, so a
 * run Hermes ends on a dead stream is settled within one interval of its end when the stream was
 * already quiet, within two when an event came just before. The interval is
 * `hermes.quiet_check_ms` (config/schema.ts). Driven by Effect's Clock, so a TestClock moves it.
 */
import { Clock, Deferred, Duration, Effect, type Scope } from "effect"

export interface QuietWatch {
  /**
   * Records that the stream carried an event (not a keepalive: those never reach the follower);
   * `numbered`: it had a frame id, so the build gives every subscriber every frame.
   */
  readonly saw: (numbered: boolean) => Effect.Effect<void>
  /** The follow opened the run's stream again after a drop: it may share a dead subscriber's queue. */
  readonly reattached: Effect.Effect<void>
  /** Completes once `ended` answered true (or `halt` was called): the follow should stop reading and settle the run. */
  readonly ended: Effect.Effect<void>
  /**
   * Sets what the watch does once the run ended (`ended` answered true, or `halt`): it runs on the
   * watch's own fiber (or the halting one), so no fiber of the follow waits for it (`Stream.interruptWhen`
   * would hold two for as long as the run is parked). Run at once when the run already ended. It
   * must not block: it ends the follow's batches.
   */
  readonly whenEnded: (onEnded: Effect.Effect<void>) => Effect.Effect<void>
  /** The run ended by another path (a stop settled it): ends the watch and the follow now. */
  readonly halt: Effect.Effect<void>
}

export interface QuietWatchOptions {
  readonly interval: Duration.Duration
  /** The follow is a re-attach (the run was followed before, by this daemon or another): suspect from the start. */
  readonly reattach: boolean
  /** The run's frames were numbered before (its ledger holds a frame id): never suspect. */
  readonly numbered: boolean
  /** True when the run ended (in Hermes, or already in the ledger); failures are the caller's to absorb. */
  readonly ended: Effect.Effect<boolean>
}

/** Starts the watch in the caller's scope; it stops when the scope closes or once `ended` said so. */
export const watchQuiet = (options: QuietWatchOptions): Effect.Effect<QuietWatch, never, Scope.Scope> =>
  Effect.gen(function* () {
    const intervalMs = Duration.toMillis(options.interval)
    let lastEvent = yield* Clock.currentTimeMillis
    let numbered = options.numbered
    let suspect = options.reattach && !numbered
    /** The checking fiber, forked when the stream becomes suspect: a trusted stream has none at all. */
    const scope = yield* Effect.scope
    let checking = false
    const done = yield* Deferred.make<void>()
    let onEnded: Effect.Effect<void> = Effect.void
    /** The run ended: completes `ended` and runs what `whenEnded` set, once. */
    const end = Effect.flatMap(Deferred.succeed(done, undefined), (first) => (first ? Effect.suspend(() => onEnded) : Effect.void))
    // An event that came while Hermes was asked means the stream is alive after all: it is left to
    // deliver (its terminal event included), so nothing it carried is cut off with it.
    let events = 0
    const check = Effect.suspend(() => {
      const asked = events
      return options.ended.pipe(
        Effect.map((ended) => ended && events === asked),
        Effect.tap((ended) => (ended ? end : Effect.void))
      )
    })
    /** One tick: asks only when no event came for a whole interval. */
    const tick = Effect.gen(function* () {
      const quietFor = (yield* Clock.currentTimeMillis) - lastEvent
      return quietFor >= intervalMs ? yield* check : false
    })
    /**
     * Checks at once, then every interval while the stream stays suspect; the fiber ends when the
     * run ended or a numbered frame made the stream trusted (for good: no re-attach makes it suspect again).
     */
    const whileSuspect = Effect.gen(function* () {
      if (yield* check) return
      for (;;) {
        yield* Effect.sleep(options.interval)
        if (!suspect) {
          checking = false
          return
        }
        if (yield* tick) return
      }
    })
    const startChecking = Effect.suspend(() => {
      if (checking) return Effect.void
      checking = true
      return Effect.asVoid(Effect.forkIn(whileSuspect, scope))
    })
    if (suspect) yield* startChecking
    return {
      saw: (isNumbered) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          lastEvent = now
          events += 1
          if (!isNumbered || numbered) return Effect.void
          numbered = true
          suspect = false
          return Effect.void
        }),
      reattached: Effect.suspend(() => {
        if (numbered || suspect) return Effect.void
        suspect = true
        return startChecking
      }),
      ended: Deferred.await(done),
      whenEnded: (effect) =>
        Effect.flatMap(Deferred.isDone(done), (already) => {
          onEnded = effect
          return already ? effect : Effect.void
        }),
      halt: end
    }
  })
