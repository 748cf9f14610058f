/**
 * Log annotations for the whole of a fiber that does one job and ends with it (a run's follower,
 * its follow). `Effect.annotateLogs` scopes an annotation to an effect instead, through a resource
 * (the old value restored at its end), which keeps that resource's frames, and the fiber
 * references they hold, on the fiber's stack for as long as the effect runs: a parked run's two
 * fibers held 6 KiB of its 77 KiB of heap that way (docs/PERFORMANCE.md, "runs"). Set here, the
 * annotation is the fiber's own until it ends, and its children inherit it, as they would.
 */
import { Effect, FiberRef, HashMap } from "effect"

/** Adds `annotations` to every later log line of the current fiber (and of the fibers it forks); never undone. */
export const annotateFiberLogs = (annotations: Readonly<Record<string, unknown>>): Effect.Effect<void> =>
  FiberRef.update(FiberRef.currentLogAnnotations, (current) => {
    let next = current
    for (const [key, value] of Object.entries(annotations)) next = HashMap.set(next, key, value)
    return next
  })
