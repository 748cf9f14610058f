/**
 * Incident ids: an unexpected failure is logged with its cause under a fresh id, and only the id
 * leaves the bridge (`bridge.internal`, docs/REFERENCE.md). One format everywhere, `inc_` and 16
 * hex digits, so an operator can grep the log for what a client quotes.
 */
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { Internal } from "../domain/errors.ts"

/** A fresh incident id: `inc_` and 16 hex digits. */
export const newIncident = (): string => `inc_${randomBytes(8).toString("hex")}`

/** Logs `message` with `cause` at error level under a fresh incident id; succeeds with the `Internal` carrying it. */
export const logIncident = (message: string, cause: unknown): Effect.Effect<Internal> =>
  Effect.suspend(() => {
    const incident = newIncident()
    return Effect.logError(message, cause).pipe(Effect.annotateLogs({ incident }), Effect.as(new Internal({ incident })))
  })

/** `logIncident`, then fails with the `Internal`. */
export const failWithIncident = (message: string, cause: unknown): Effect.Effect<never, Internal> =>
  Effect.flatMap(logIncident(message, cause), Effect.fail)
