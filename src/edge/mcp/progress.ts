/**
 * The live `Progress` for one tool call: `notifications/progress` on the request's own stream when
 * the client sent a `progressToken`. Progress values are kept strictly increasing, as MCP requires.
 */
import type { ServerNotification } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import type { ProgressShape } from "../../services/Progress.ts"

interface NotificationSender {
  readonly sendNotification: (n: ServerNotification) => Promise<void>
}

export const progressFor = (token: string | number | undefined, extra: NotificationSender): ProgressShape => {
  if (token === undefined) return { enabled: false, report: () => Effect.void }
  let last = 0
  return {
    enabled: true,
    report: (progress, message) =>
      Effect.suspend(() => {
        last = Math.max(last + 1, Math.floor(progress))
        const params = message === undefined ? { progressToken: token, progress: last } : { progressToken: token, progress: last, message }
        return Effect.promise(() => extra.sendNotification({ method: "notifications/progress", params }).catch(() => undefined))
      })
  }
}
