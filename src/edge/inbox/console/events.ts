/**
 * `GET /inbox/console/events`: the console pages' change feed, in the inbox's pattern (the same
 * frames, which the same page script follows): an `inbox` event carries the console's version when
 * it differs from the last one sent, `signedout` ends the stream once the session is gone.
 *
 * The version is read at most once per `pollInterval` rather than on every ledger write: a live run
 * commits many times a second, and a page wants at most one refresh a second whoever wrote (the
 * daemon's followers, or the CLI from another process). The read is a handful of indexed aggregates.
 * When to read (issue 41: an idle page costs nothing while nothing happens):
 *
 * - every `pollInterval` while the last read saw a live run (its writes go on);
 * - otherwise on a change the process's change feed reports (topics `runs`, `stops`, `keys`: another
 *   process's commit, a key changed here), and at every `heartbeat` (the keep-alive's own wake-up,
 *   15 s), which also catches what no topic announces (a run started here while none was live, a
 *   client's last use).
 */
import { Duration, Effect, Option, Queue, Stream } from "effect"
import { makeConsoleQueries } from "../../../services/console/queries.ts"
import { ChangeFeed, type Topic } from "../../../storage/ChangeFeed.ts"
import { feedResponse, sessionFeed } from "../events.ts"
import { InboxWeb } from "../InboxWeb.ts"
import type { Clients } from "../../../services/auth/Clients.ts"
import type { StopRequests } from "../../../services/console/stopRequests.ts"
import type { Ledger } from "../../../services/runs/Ledger.ts"

const WATCHED: ReadonlyArray<Topic> = ["runs", "stops", "keys"]

export const consoleEvents = (token: string): Stream.Stream<string, never, InboxWeb | Ledger | StopRequests | Clients> =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const web = yield* InboxWeb
      const queries = yield* makeConsoleQueries
      const feed = yield* Effect.serviceOption(ChangeFeed)
      // A change since the last read (one kept: any number of them is one read).
      const changed = yield* Queue.sliding<void>(1)
      if (Option.isSome(feed)) {
        for (const topic of WATCHED) {
          const changes = yield* feed.value.subscribe(topic)
          yield* changes.pipe(Stream.runForEach(() => Queue.offer(changed, undefined)), Effect.forkScoped)
        }
      }
      // A failed read is logged and skipped: the next wake-up reads again.
      const read = queries.watched.pipe(
        Effect.map(Option.some),
        Effect.catchAll((e) => Effect.as(Effect.logWarning("console: reading the version failed", e), Option.none<{ version: string; live: boolean }>()))
      )
      const quiet = Duration.max(Duration.subtract(web.heartbeat, web.pollInterval), Duration.zero)
      const versions = yield* Queue.sliding<string>(1)
      const loop = Effect.gen(function* () {
        for (;;) {
          yield* Queue.takeAll(changed)
          const w = yield* read
          if (Option.isSome(w)) yield* Queue.offer(versions, w.value.version)
          yield* Effect.sleep(web.pollInterval)
          if (Option.isNone(w) || !w.value.live) yield* Queue.take(changed).pipe(Effect.timeout(quiet), Effect.ignore)
        }
      })
      yield* Effect.forkScoped(loop)
      return sessionFeed(token, Stream.fromQueue(versions))
    })
  )

export const consoleEventsResponse = (token: string) => feedResponse(consoleEvents(token))
