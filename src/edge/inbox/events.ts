/**
 * `GET /inbox/events`: Server-Sent Events telling an open page when the pending rows change, so it
 * can fetch itself again (the page script does; the page also works without it). The `Inbox` service
 * has no change feed, so the stream looks at the pending rows every `pollInterval` and sends the new
 * fingerprint only when it differs: an `inbox` event carries it, a `signedout` event ends the stream
 * once the session is gone, and comments keep idle connections open through proxies.
 */
import { HttpServerResponse } from "@effect/platform"
import { Effect, Schedule, Stream } from "effect"
import type { Inbox } from "../../services/Inbox.ts"
import { InboxWeb } from "./InboxWeb.ts"
import { pendingRows, pendingVersion } from "./respond.ts"
import { SECURITY_HEADERS } from "./security.ts"

type Signal = { readonly _tag: "version"; readonly version: string } | { readonly _tag: "signedout" }

/** How long the browser waits before reconnecting a dropped stream. */
const RETRY_MS = 2000

const frame = (signal: Signal): string =>
  signal._tag === "version" ? `event: inbox\ndata: ${signal.version}\n\n` : "event: signedout\ndata: \n\n"

/** The frames of one page's stream, as text; ends after `signedout`. */
export const inboxEvents = (token: string): Stream.Stream<string, never, Inbox | InboxWeb> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const web = yield* InboxWeb
      const look: Effect.Effect<Signal | null, never, Inbox> = Effect.gen(function* () {
        const session = yield* web.sessions.find(token)
        if (session._tag === "None") return { _tag: "signedout" } as const
        return { _tag: "version", version: pendingVersion(yield* pendingRows) } as const
      }).pipe(
        // A failed look is skipped (the Inbox logged it); the next one may succeed.
        Effect.catchAll(() => Effect.succeed(null))
      )
      const signals = Stream.repeatEffectWithSchedule(look, Schedule.spaced(web.pollInterval)).pipe(
        Stream.filter((s): s is Signal => s !== null),
        Stream.changesWith((a, b) => frame(a) === frame(b)),
        Stream.takeUntil((s) => s._tag === "signedout"),
        Stream.map(frame)
      )
      const keepAlive = Stream.tick(web.heartbeat).pipe(Stream.drop(1), Stream.as(": keep-alive\n\n"))
      return Stream.concat(
        Stream.make(`retry: ${RETRY_MS}\n\n`),
        Stream.merge(signals, keepAlive, { haltStrategy: "left" })
      )
    })
  )

export const eventsResponse = (token: string) =>
  Effect.map(Effect.context<Inbox | InboxWeb>(), (context) =>
    HttpServerResponse.stream(inboxEvents(token).pipe(Stream.encodeText, Stream.provideContext(context)), {
      contentType: "text/event-stream; charset=utf-8",
      headers: { ...SECURITY_HEADERS, "x-accel-buffering": "no" }
    })
  )
