/**
 * The daemon's phase: `starting` until every service is up and runs are re-attached, `ready`, then
 * `draining` from the first shutdown signal. Run tools answer `bridge.unavailable` outside `ready`.
 */
import { Context, Effect, Layer, Option, Stream, SubscriptionRef } from "effect"
import { Unavailable } from "../domain/errors.ts"

export type Phase = "starting" | "ready" | "draining"

export interface LifecycleShape {
  readonly phase: Effect.Effect<Phase>
  readonly set: (phase: Phase) => Effect.Effect<void>
  /** Waits (without polling) until the phase has left `starting`; answers the phase then. */
  readonly started: Effect.Effect<Phase>
  /** Fails with `bridge.unavailable` unless the daemon is ready. */
  readonly requireReady: Effect.Effect<void, Unavailable>
  /**
   * Fails with `bridge.unavailable` once the daemon is no longer ready (at once if it is not): what
   * a long-lived follow (`Runs.watch`) is raced with, so a shutdown ends it with the typed error.
   */
  readonly untilNotReady: Effect.Effect<never, Unavailable>
}

export class Lifecycle extends Context.Tag("agent-bridge/Lifecycle")<Lifecycle, LifecycleShape>() {}

const unavailable = (p: Phase) => new Unavailable({ message: p === "starting" ? "the bridge is starting; retry shortly" : "the bridge is shutting down" })

/** A Lifecycle in `initial`; the phase lives in a SubscriptionRef, so waiting for it (`started`, `untilNotReady`) is an event. */
export const LifecycleAt = (initial: Phase) =>
  Layer.effect(
    Lifecycle,
    Effect.map(SubscriptionRef.make<Phase>(initial), (ref) => ({
      phase: SubscriptionRef.get(ref),
      set: (phase) => SubscriptionRef.set(ref, phase),
      started: ref.changes.pipe(Stream.filter((p) => p !== "starting"), Stream.runHead, Effect.map(Option.getOrElse((): Phase => "draining"))),
      requireReady: Effect.flatMap(SubscriptionRef.get(ref), (p) => (p === "ready" ? Effect.void : Effect.fail(unavailable(p)))),
      untilNotReady: ref.changes.pipe(
        Stream.filter((p) => p !== "ready"),
        Stream.runHead,
        Effect.flatMap((p) => Effect.fail(unavailable(p._tag === "Some" ? p.value : "draining")))
      )
    }))
  )

/** The daemon's: `starting` until `markReady`. */
export const LifecycleStarting = LifecycleAt("starting")

/** Ready from the start (tests). */
export const LifecycleReady = LifecycleAt("ready")
