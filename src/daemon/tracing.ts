/**
 * No tracing spans in the daemon. The bridge exports no traces, and `@effect/sql` makes a span per
 * statement and per transaction (the HTTP client one per Hermes request), each with attributes,
 * clock reads and a copy of the fiber's context, on every streamed event and every tool call
 * (issue 41). Provided beneath every service, so every fiber the daemon forks inherits it.
 */
import { Layer } from "effect"

export const TracingOff: Layer.Layer<never> = Layer.setTracerEnabled(false)
