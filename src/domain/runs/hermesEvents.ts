/**
 * Hermes's run-event vocabulary, in one place: the event as the bridge holds it once the SSE edge
 * (`hermes/client/sse.ts`) has decoded it, the names of the terminal events, and (in `view.ts`)
 * the run statuses, which are Hermes's and the bridge's alike.
 */

/**
 * One Hermes event. `id` is the frame's `id:` (newer builds) or null (older builds, and events the
 * bridge synthesises from a status). `data` is the whole JSON object, `event`, `run_id` and
 * `timestamp` included; `event` repeats `data.event`.
 */
export interface HermesEvent {
  readonly id: number | null
  readonly event: string
  readonly data: { readonly [k: string]: unknown }
}

export const TERMINAL_EVENTS: ReadonlySet<string> = new Set(["run.completed", "run.failed", "run.cancelled", "run.interrupted"])

export const isTerminalEvent = (name: string): boolean => TERMINAL_EVENTS.has(name)
