/**
 * The daemon's phase: `starting` until every service is up and runs are re-attached, `ready`, then
 * `draining` from the first shutdown signal. Run tools answer `bridge.unavailable` outside `ready`.
 */
import { Context, Effect, Layer, Ref } from "effect"
import { Unavailable } from "../domain/errors.ts"

export type Phase = "starting" | "ready" | "draining"

export interface LifecycleShape {
  readonly phase: Effect.Effect<Phase>
  readonly set: (phase: Phase) => Effect.Effect<void>
  /** Fails with `bridge.unavailable` unless the daemon is ready. */
  readonly requireReady: Effect.Effect<void, Unavailable>
}

export class Lifecycle extends Context.Tag("agent-bridge/Lifecycle")<Lifecycle, LifecycleShape>() {}

/** A Lifecycle in `initial`; the phase lives in a Ref. */
export const LifecycleAt = (initial: Phase) =>
  Layer.effect(
    Lifecycle,
    Effect.map(Ref.make<Phase>(initial), (ref) => ({
      phase: Ref.get(ref),
      set: (phase) => Ref.set(ref, phase),
      requireReady: Effect.flatMap(Ref.get(ref), (p) =>
        p === "ready"
          ? Effect.void
          : Effect.fail(new Unavailable({ message: p === "starting" ? "the bridge is starting; retry shortly" : "the bridge is shutting down" }))
      )
    }))
  )

/** The daemon's: `starting` until `markReady`. */
export const LifecycleStarting = LifecycleAt("starting")

/** Ready from the start (tests). */
export const LifecycleReady = LifecycleAt("ready")
