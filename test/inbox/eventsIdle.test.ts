/**
 * An open page's event stream does not poll (issue 41: it looked its session up once a second per
 * open page). On the test clock, with the session lookups counted: an idle page looks at its
 * session only at each keep-alive (`heartbeat`), a change of the change feed's `sessions` topic
 * makes it look at once, and a sign-out through this process ends the stream with no clock moving.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Context, Duration, Effect, Fiber, Layer, Ref, Stream, TestClock } from "effect"
import { RedactorLive } from "../../src/common/Redactor.ts"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { sessionFeed } from "../../src/edge/inbox/events.ts"
import { InboxWeb, InboxWebLive } from "../../src/edge/inbox/InboxWeb.ts"
import { AuthLive } from "../../src/services/auth/Auth.ts"
import { ChangeFeed, ChangeFeedTest } from "../../src/storage/ChangeFeed.ts"
import { tempDir, testConfig } from "../support/daemon.ts"
import { TestDbFor } from "../support/testDb.ts"
import { InboxSessionStores } from "./support.ts"

const ADMIN_KEY = "hal0bk_idle0inbox0admin0key0000000000000"
const HEARTBEAT = Duration.seconds(15)

describe("an idle page's event stream", () => {
  it.scoped("looks at its session at each keep-alive and on a change, never on a poll; a sign-out here ends it at once", () =>
    Effect.gen(function* () {
      const ctx = yield* Layer.build(
        InboxWebLive({ sessionTtl: Duration.hours(12), pollInterval: Duration.seconds(1), heartbeat: HEARTBEAT }).pipe(
          Layer.provideMerge(InboxSessionStores),
          Layer.provideMerge(AuthLive),
          Layer.provideMerge(ChangeFeedTest),
          Layer.provideMerge(RedactorLive),
          Layer.provideMerge(AppConfigLive(testConfig({ bridge: { admin_key: ADMIN_KEY } }))),
          Layer.provideMerge(TestDbFor(tempDir()))
        )
      )
      const web = Context.get(ctx, InboxWeb)
      const feed = Context.get(ctx, ChangeFeed)
      const looks = yield* Ref.make(0)
      const counted = { ...web, sessions: { ...web.sessions, find: (t: string | undefined) => Effect.zipRight(Ref.update(looks, (n) => n + 1), web.sessions.find(t)) } }
      const { token } = yield* web.sessions.open
      const frames = yield* sessionFeed(token, Stream.never).pipe(Stream.provideService(InboxWeb, counted), Stream.provideService(ChangeFeed, feed), Stream.runCollect, Effect.fork)
      yield* Effect.yieldNow()
      // One minute idle: four keep-alives, four looks (a poll at 1 s would have made 60).
      for (let i = 1; i <= 4; i++) {
        yield* TestClock.adjust(HEARTBEAT)
        yield* Ref.get(looks).pipe(Effect.zipLeft(Effect.yieldNow()), Effect.repeat({ until: (n) => n >= i }))
      }
      expect(yield* Ref.get(looks)).toBe(4)
      // A change of the sessions topic (here, an MCP session ended): one look, at once.
      yield* feed.notify("sessions")
      yield* Ref.get(looks).pipe(Effect.zipLeft(Effect.yieldNow()), Effect.repeat({ until: (n) => n >= 5 }))
      // A sign-out through this process ends the stream without the clock moving.
      yield* web.sessions.close(token)
      const text = Chunk.toReadonlyArray(yield* Fiber.join(frames)).join("")
      expect(text).toContain("event: signedout")
      expect(text.split(": keep-alive").length - 1).toBe(4)
    }))
})
