/**
 * `GET /inbox/console/events`: the console pages' change feed, in the inbox's pattern (the same
 * frames, which the same page script follows): an `inbox` event carries the console's version when
 * it differs from the last one sent, `signedout` ends the stream once the session is gone.
 *
 * The version is read once per `pollInterval` rather than on every ledger write: a live run commits
 * many times a second, and a page wants at most one refresh a second whoever wrote (the daemon's
 * followers, or the CLI from another process). The read is a handful of indexed aggregates.
 */
import { Effect, Option, Schedule, Stream } from "effect"
import { makeConsoleQueries } from "../../../services/console/queries.ts"
import { feedResponse, sessionFeed } from "../events.ts"
import { InboxWeb } from "../InboxWeb.ts"
import type { Clients } from "../../../services/auth/Clients.ts"
import type { StopRequests } from "../../../services/console/stopRequests.ts"
import type { Ledger } from "../../../services/runs/Ledger.ts"

export const consoleEvents = (token: string): Stream.Stream<string, never, InboxWeb | Ledger | StopRequests | Clients> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const web = yield* InboxWeb
      const queries = yield* makeConsoleQueries
      // A failed read is logged and skipped: the next tick reads again.
      const read = queries.version.pipe(
        Effect.map(Option.some),
        Effect.catchAll((e) => Effect.as(Effect.logWarning("console: reading the version failed", e), Option.none<string>()))
      )
      return sessionFeed(token, Stream.repeatEffectWithSchedule(read, Schedule.spaced(web.pollInterval)).pipe(Stream.filterMap((v) => v)))
    })
  )

export const consoleEventsResponse = (token: string) => feedResponse(consoleEvents(token))
