/**
 * `GET /inbox/events`: Server-Sent Events telling an open page when the pending rows change, so it
 * can fetch itself again (the page script does; the page also works without it). The stream waits
 * on the Inbox's change feed and reads the pending rows only when it moves (a burst of changes
 * becomes one read), sending their fingerprint only when it differs from the last one sent: an
 * `inbox` event carries it, a `signedout` event ends the stream once the session is gone, and
 * comments keep idle connections open through proxies.
 *
 * The session is looked up in the database when the process's change feed reports a change of the
 * `sessions` topic (a sign-out through this process, another process's commit on SQLite) and at
 * every keep-alive (`heartbeat`, 15 s: a sign-out through another replica on PostgreSQL, the
 * session's end), never on a poll of its own (issue 41: it was once a second per open page).
 */
import { Effect, Option, Schedule, Stream } from "effect"
import { Inbox } from "../../services/inbox/Inbox.ts"
import { ChangeFeed } from "../../storage/ChangeFeed.ts"
import { InboxWeb } from "./InboxWeb.ts"
import { pendingRows, pendingVersion } from "./respond.ts"
import { Consents } from "../../services/oauth/Consents.ts"
import { SECURITY_HEADERS } from "./security.ts"
import { KEEP_ALIVE_FRAME, sseFrame, sseResponse } from "../sse.ts"

type Signal = { readonly _tag: "version"; readonly version: string } | { readonly _tag: "signedout" }

/** How long the browser waits before reconnecting a dropped stream. */
const RETRY_MS = 2000

const frame = (signal: Signal): string => (signal._tag === "version" ? sseFrame(signal.version, "inbox") : sseFrame("", "signedout"))

/**
 * The frames of one page's stream, as text: `retry`, then an `inbox` event for each new version,
 * keep-alive comments, and `signedout` (which ends it) once the session is gone. The console's feed
 * (console/events.ts) is the same stream over its own versions.
 */
export const sessionFeed = <R>(token: string, versions: Stream.Stream<string, never, R>): Stream.Stream<string, never, R | InboxWeb> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const web = yield* InboxWeb
      const feed = yield* Effect.serviceOption(ChangeFeed)
      // A failed read (the store logged it) ends nothing: the next check tells.
      const live = web.sessions.find(token).pipe(Effect.map(Option.isSome), Effect.orElseSucceed(() => true))
      const changes: Stream.Stream<"change"> = Option.isSome(feed)
        ? feed.value.changes("sessions").pipe(Stream.buffer({ capacity: 1, strategy: "sliding" }), Stream.as("change" as const))
        : Stream.never
      const beats = Stream.tick(web.heartbeat).pipe(Stream.drop(1), Stream.as("beat" as const))
      // Each wake-up looks at the session; a beat also keeps the connection open.
      const session = Stream.merge(beats, changes).pipe(
        Stream.mapEffect((wake) => Effect.map(live, (isLive) => ({ wake, isLive }))),
        Stream.takeUntil(({ isLive }) => !isLive),
        Stream.flatMap(({ isLive, wake }) => (!isLive ? Stream.make(frame({ _tag: "signedout" })) : wake === "beat" ? Stream.make(KEEP_ALIVE_FRAME) : Stream.empty))
      )
      const updates = versions.pipe(Stream.changes, Stream.map((version) => frame({ _tag: "version", version })))
      return Stream.concat(
        Stream.make(`retry: ${RETRY_MS}\n\n`),
        Stream.merge(updates, session, { haltStrategy: "right" })
      )
    })
  )

/** The frames of the inbox page's stream; ends after `signedout`. */
export const inboxEvents = (token: string): Stream.Stream<string, never, Inbox | InboxWeb> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const web = yield* InboxWeb
      const inbox = yield* Inbox
      // A failed read (the Inbox logged it) is tried again after `pollInterval`; a change arriving
      // meanwhile replaces the one being read, so the page still ends up with the newest rows.
      // (The schedule never ends, so no failure gets past `retry`: `orDie` only drops it from the type.)
      // OAuth's pending connection requests are shown on the page too (when OAuth is on): part of the version.
      const consents = yield* Effect.serviceOption(Consents)
      const pendingConsents = Option.match(consents, {
        onNone: () => Effect.succeed(""),
        onSome: (c) => Effect.map(c.pending, (rows) => rows.map((r) => r.id).join(","))
      })
      const readVersion = Effect.zipWith(Effect.map(pendingRows, pendingVersion), pendingConsents, (rows, connections) => (connections === "" ? rows : `${rows}.${connections}`)).pipe(
        Effect.retry(Schedule.spaced(web.pollInterval)),
        Effect.orDie
      )
      const versions = inbox.changes.pipe(
        Stream.buffer({ capacity: 1, strategy: "sliding" }),
        Stream.mapEffect(() => readVersion)
      )
      return sessionFeed(token, versions)
    })
  )

/** A feed's frames as the event-stream response (security headers, no proxy buffering). */
export const feedResponse = <R>(frames: Stream.Stream<string, never, R>) =>
  sseResponse(frames, { contentType: "text/event-stream; charset=utf-8", headers: { ...SECURITY_HEADERS, "x-accel-buffering": "no" } })

export const eventsResponse = (token: string) => feedResponse(inboxEvents(token))
