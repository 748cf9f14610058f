/**
 * The live `Progress` for one tool call: `notifications/progress` related to the request (on its own
 * stream, in both protocol eras) when the client sent a `progressToken`. Progress values are kept
 * strictly increasing, as MCP requires.
 */
import { Effect } from "effect"
import { NO_PROGRESS, type ProgressShape } from "../../request/Progress.ts"
import type { ServerNotification } from "./wireTypes.ts"

export type NotificationSender = (n: ServerNotification) => Promise<void>

/** A call without a `progressToken`: one shared value, so a call's runtime can be reused (`callRuntime`). */
export { NO_PROGRESS }

export const progressFor = (token: string | number | undefined, send: NotificationSender): ProgressShape => {
  if (token === undefined) return NO_PROGRESS
  let last = 0
  return {
    enabled: true,
    report: (progress, message) =>
      Effect.suspend(() => {
        last = Math.max(last + 1, Math.floor(progress))
        const params = message === undefined ? { progressToken: token, progress: last } : { progressToken: token, progress: last, message }
        return Effect.promise(() => send({ method: "notifications/progress", params }).catch(() => undefined))
      })
  }
}
