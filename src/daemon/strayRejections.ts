/**
 * A promise rejected with nobody listening (a library callback that rejects after its caller went
 * away, e.g. a write to an MCP stream whose client has just dropped) ends a Node process by default.
 * For the daemon that would cut every live run's follower and every client at once, for an error no
 * request is waiting on. While the daemon runs, such a rejection is logged (through the daemon's
 * logger, so it is redacted) and the daemon carries on. Exceptions thrown outside any promise still
 * end the process: after one, its state cannot be trusted.
 */
import { Cause, Effect, Layer, Runtime } from "effect"

/** The listener: logs the rejection as an error with its cause, through `runtime`'s logger. */
export const logStrayRejection =
  <R>(runtime: Runtime.Runtime<R>) =>
  (reason: unknown): void => {
    Runtime.runFork(runtime)(
      Effect.logError("a promise was rejected with nobody waiting for it; the daemon carries on", Cause.die(reason))
    )
  }

/** Installs the listener for the layer's lifetime (the daemon's). */
export const StrayRejectionsLogged = Layer.scopedDiscard(
  Effect.gen(function* () {
    const listener = logStrayRejection(yield* Effect.runtime<never>())
    yield* Effect.acquireRelease(
      Effect.sync(() => process.on("unhandledRejection", listener)),
      () => Effect.sync(() => process.off("unhandledRejection", listener))
    )
  })
)
