/**
 * `GET /inbox/console/events`: the console pages' change feed, in the inbox's pattern (the same
 * frames, which the same page script follows): an `inbox` event carries the console's version when
 * it differs from the last one sent, `signedout` ends the stream once the session is gone.
 *
 * The version is read once per `pollInterval` rather than on every ledger write: a live run commits
 * many times a second, and a page wants at most one refresh a second whoever wrote (the daemon's
 * followers, or the CLI from another process). The read is a handful of indexed aggregates.
 */
import { HttpServerResponse } from "@effect/platform"
import { Effect, Option, Schedule, Stream } from "effect"
import { makeConsoleQueries } from "../../../services/console/queries.ts"
import { InboxWeb } from "../InboxWeb.ts"
import { SECURITY_HEADERS } from "../security.ts"
import type { SqlClient } from "@effect/sql"

const RETRY_MS = 2000

type Signal = { readonly _tag: "version"; readonly version: string } | { readonly _tag: "signedout" }

const frame = (signal: Signal): string =>
  signal._tag === "version" ? `event: inbox\ndata: ${signal.version}\n\n` : "event: signedout\ndata: \n\n"

export const consoleEvents = (token: string): Stream.Stream<string, never, InboxWeb | SqlClient.SqlClient> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const web = yield* InboxWeb
      const queries = yield* makeConsoleQueries
      // A failed read is logged and skipped: the next tick reads again.
      const read = queries.version.pipe(
        Effect.map(Option.some),
        Effect.catchAll((e) => Effect.as(Effect.logWarning("console: reading the version failed", e), Option.none<string>()))
      )
      const versions: Stream.Stream<Signal> = Stream.repeatEffectWithSchedule(read, Schedule.spaced(web.pollInterval)).pipe(
        Stream.filterMap((v) => v),
        Stream.changes,
        Stream.map((version) => ({ _tag: "version", version }) as const)
      )
      const signedOut: Stream.Stream<Signal> = Stream.repeatEffectWithSchedule(web.sessions.find(token), Schedule.spaced(web.pollInterval)).pipe(
        Stream.filter(Option.isNone),
        Stream.take(1),
        Stream.as({ _tag: "signedout" } as const)
      )
      const signals = Stream.merge(versions, signedOut).pipe(Stream.takeUntil((s) => s._tag === "signedout"), Stream.map(frame))
      const keepAlive = Stream.tick(web.heartbeat).pipe(Stream.drop(1), Stream.as(": keep-alive\n\n"))
      return Stream.concat(Stream.make(`retry: ${RETRY_MS}\n\n`), Stream.merge(signals, keepAlive, { haltStrategy: "left" }))
    })
  )

export const consoleEventsResponse = (token: string) =>
  Effect.map(Effect.context<InboxWeb | SqlClient.SqlClient>(), (context) =>
    HttpServerResponse.stream(consoleEvents(token).pipe(Stream.encodeText, Stream.provideContext(context)), {
      contentType: "text/event-stream; charset=utf-8",
      headers: { ...SECURITY_HEADERS, "x-accel-buffering": "no" }
    })
  )
