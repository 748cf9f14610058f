/**
 * `GET /inbox/console/events`: the console pages' change feed, in the inbox's pattern (the same
 * frames, which the same page script follows): an `inbox` event carries the console's version when
 * it differs from the last one sent, `signedout` ends the stream once the session is gone.
 *
 * The version (a handful of indexed aggregates) is read when something says it may have moved,
 * never on a poll (issues 39 and 41): a run inserted or written in this process (the ledger's
 * `written`), another process's commit or a stop request or key changed here (the change feed's
 * `runs`, `stops` and `keys` topics); see `ConsoleQueries.changes`. A live run writes many times a
 * second and a page wants at most one refresh a second: a change that comes within `pollInterval`
 * of the previous change's read is read once that interval is over, with every change that came
 * meanwhile (a burst is one read). What no change announces (a client's last use, the retention
 * sweep) is read at the keep-alive's pace: after `heartbeat` (15 s) with no change, once.
 */
import { Clock, Duration, Effect, Option, Queue, Stream } from "effect"
import { makeConsoleQueries } from "../../../services/console/queries.ts"
import { feedResponse, sessionFeed } from "../events.ts"
import { InboxWeb } from "../InboxWeb.ts"
import type { Clients } from "../../../services/auth/Clients.ts"
import type { StopRequests } from "../../../services/console/stopRequests.ts"
import type { Ledger } from "../../../services/runs/Ledger.ts"

export const consoleEvents = (token: string): Stream.Stream<string, never, InboxWeb | Ledger | StopRequests | Clients> =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const web = yield* InboxWeb
      const queries = yield* makeConsoleQueries
      // A change since the last read (one kept: any number of them is one read). Subscribed before
      // the first read, so nothing committed after it is missed.
      const changed = yield* Queue.sliding<void>(1)
      yield* (yield* queries.changes).pipe(Stream.runForEach(() => Queue.offer(changed, undefined)), Effect.forkScoped)
      // A failed read is logged and skipped: the next wake-up reads again.
      const read = queries.version.pipe(
        Effect.map(Option.some),
        Effect.catchAll((e) => Effect.as(Effect.logWarning("console: reading the version failed", e), Option.none<string>()))
      )
      const spacing = Duration.toMillis(web.pollInterval)
      const versions = yield* Queue.sliding<string>(1)
      const readAndOffer = Effect.flatMap(read, Option.match({ onNone: () => Effect.void, onSome: (v) => Queue.offer(versions, v) }))
      const loop = Effect.gen(function* () {
        // When the last read a change brought began (none yet: the first change is read at once).
        let lastChangeRead = Number.NEGATIVE_INFINITY
        yield* readAndOffer
        for (;;) {
          const woke = yield* Queue.take(changed).pipe(Effect.timeoutOption(web.heartbeat))
          if (Option.isSome(woke)) {
            const since = (yield* Clock.currentTimeMillis) - lastChangeRead
            if (since < spacing) yield* Effect.sleep(Duration.millis(spacing - since))
            lastChangeRead = yield* Clock.currentTimeMillis
          }
          // This read covers every change that came before it.
          yield* Queue.takeAll(changed)
          yield* readAndOffer
        }
      })
      yield* Effect.forkScoped(loop)
      return sessionFeed(token, Stream.fromQueue(versions))
    })
  )

export const consoleEventsResponse = (token: string) => feedResponse(consoleEvents(token))
