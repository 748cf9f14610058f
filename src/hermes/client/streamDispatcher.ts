/**
 * The undici dispatcher of Hermes's event streams: the HTTP client's own, with undici's body
 * timeout (the longest wait between two chunks of a response body) set to the stream idle limit.
 * Hermes sends a keepalive at least every 30 s, so a stream silent for longer is a dead link (a
 * half-open connection, a proxy that lost its upstream). undici watches that on one shared coarse
 * timer for every connection; a `Stream.timeoutFail` on each stream raced two fibers against every
 * pull instead, which a parked run held for as long as it was parked (issue 41: memory per run).
 */
import type * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type { Context, Duration } from "effect"
import { Duration as D } from "effect"

type Dispatcher = Context.Tag.Service<typeof NodeHttpClient.Dispatcher>

/** `dispatcher` with every request's body timeout set to `idle` (@effect/platform sends 0, "none"). */
export const withBodyIdleTimeout = (dispatcher: Dispatcher, idle: Duration.Duration): Dispatcher => {
  const bodyTimeout = D.toMillis(idle)
  return dispatcher.compose((dispatch) => (options, handler) => dispatch({ ...options, bodyTimeout }, handler))
}

/** True when `cause` (or what it wraps) is undici's body timeout. */
export const isBodyTimeout = (cause: unknown): boolean => {
  const seen = new Set<unknown>()
  let c: unknown = cause
  while (typeof c === "object" && c !== null && !seen.has(c)) {
    seen.add(c)
    if ((c as { code?: unknown }).code === "UND_ERR_BODY_TIMEOUT") return true
    c = (c as { cause?: unknown }).cause
  }
  return false
}
