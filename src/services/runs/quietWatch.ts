/**
 * The follower's check of a quiet stream against Hermes's status. An older Hermes (0.19, 0.20)
 * notices a dead subscriber only at its next write: a bridge restarted while a run is quiet (an
 * approval pending, a long tool call) re-attaches with 200 to the queue the dead connection still
 * holds, the next event goes to the dead one, Hermes drops the queue, and the new stream carries
 * only keepalives until the run is long over (docs/RELIABILITY.md, "restart"). Keepalives are not
 * events, so they never count as news here: a followed stream that carried no event for
 * `interval` is checked with `ended` (Hermes's status, and the ledger), and again every `interval`
 * while it stays quiet; a re-attached follow is checked once at once as well.
 *
 * Ticks come every interval and ask when the last event is a whole interval old, so a run Hermes
 * ends on a dead stream is settled within one interval of its end when the stream was already
 * quiet, within two when an event came just before; one status read per quiet interval of each
 * quiet run. The interval is `hermes.quiet_check_ms` (config/schema.ts). Driven by Effect's Clock
 * and Schedule, so a TestClock moves it.
 */
import { Clock, Deferred, Duration, Effect, Schedule, type Scope } from "effect"

export interface QuietWatch {
  /** Records that the stream carried an event (not a keepalive: those never reach the follower). */
  readonly saw: Effect.Effect<void>
  /** Completes once `ended` answered true (or `halt` was called): the follow should stop reading and settle the run. */
  readonly ended: Effect.Effect<void>
  /** The run ended by another path (a stop settled it): ends the watch and the follow now. */
  readonly halt: Effect.Effect<void>
}

export interface QuietWatchOptions {
  readonly interval: Duration.Duration
  /** Check once right away (the follow is a re-attach), not only after a quiet interval. */
  readonly checkAtOnce: boolean
  /** True when the run ended (in Hermes, or already in the ledger); failures are the caller's to absorb. */
  readonly ended: Effect.Effect<boolean>
}

/** Starts the watch in the caller's scope; it stops when the scope closes or once `ended` said so. */
export const watchQuiet = (options: QuietWatchOptions): Effect.Effect<QuietWatch, never, Scope.Scope> =>
  Effect.gen(function* () {
    const intervalMs = Duration.toMillis(options.interval)
    let lastEvent = yield* Clock.currentTimeMillis
    const done = yield* Deferred.make<void>()
    // An event that came while Hermes was asked means the stream is alive after all: it is left to
    // deliver (its terminal event included), so nothing it carried is cut off with it.
    const check = Effect.suspend(() => {
      const asked = lastEvent
      return options.ended.pipe(
        Effect.map((ended) => ended && lastEvent === asked),
        Effect.tap((ended) => (ended ? Deferred.succeed(done, undefined) : Effect.void))
      )
    })
    /** One tick: asks only when no event came for a whole interval. */
    const tick = Effect.gen(function* () {
      const quietFor = (yield* Clock.currentTimeMillis) - lastEvent
      return quietFor >= intervalMs ? yield* check : false
    })
    const loop = Effect.gen(function* () {
      if (options.checkAtOnce && (yield* check)) return
      yield* Effect.sleep(options.interval)
      yield* Effect.repeat(tick, { schedule: Schedule.spaced(options.interval), until: (ended) => ended })
    })
    yield* Effect.forkScoped(loop)
    return {
      saw: Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => { lastEvent = now })),
      ended: Deferred.await(done),
      halt: Deferred.succeed(done, undefined).pipe(Effect.asVoid)
    }
  })
