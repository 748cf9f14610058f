/**
 * The inbox's operator sessions and sign-in limit across replicas (issue 37 item 6): two inbox web
 * layers ("replicas" A and B), each over its own connection to one database (SQLite: two
 * connections to one file; PostgreSQL: two pools on one database), as two daemons behind a load
 * balancer are. A session opened through A is honoured by B with its CSRF token, a sign-out through
 * either ends it on both, it expires on both at its end, a replica with another admin key honours
 * none of them, an open page's event stream on A ends when the session is signed out through B (and
 * not when a read of it fails), and the failures the sign-in limit counts through A refuse
 * sign-ins through B.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Context, Duration, Effect, Fiber, Layer, Option, Stream, TestClock } from "effect"
import { RedactorLive } from "../../src/common/Redactor.ts"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { sessionFeed } from "../../src/edge/inbox/events.ts"
import { InboxWeb, InboxWebLive, type InboxWebShape } from "../../src/edge/inbox/InboxWeb.ts"
import { AuthLive } from "../../src/services/auth/Auth.ts"
import { ChangeFeedTest } from "../../src/storage/ChangeFeed.ts"
import { tempDir, testConfig } from "../support/daemon.ts"
import { TestDbFor } from "../support/testDb.ts"
import { InboxSessionStores } from "./support.ts"

const ADMIN_KEY = "hal0bk_shared0inbox0admin0key00000000000"
const OTHER_ADMIN_KEY = "hal0bk_another0inbox0admin0key000000000"
const TTL = Duration.hours(12)

/** One replica's inbox web layer over its own connection to the database of `dir`. */
const replica = (dir: string, adminKey = ADMIN_KEY) =>
  Effect.map(
    Layer.build(
      // The keep-alive at 20 ms: each replica has a change feed of its own here, so a sign-out through
      // B reaches A at its next keep-alive, as on PostgreSQL.
      InboxWebLive({ sessionTtl: TTL, pollInterval: Duration.millis(20), heartbeat: Duration.millis(20) }).pipe(
        Layer.provideMerge(InboxSessionStores),
        Layer.provideMerge(AuthLive),
        Layer.provideMerge(ChangeFeedTest),
        Layer.provideMerge(RedactorLive),
        Layer.provideMerge(AppConfigLive(testConfig({ bridge: { admin_key: adminKey } }))),
        Layer.provideMerge(TestDbFor(dir))
      )
    ),
    (ctx): InboxWebShape & { readonly sql: SqlClient.SqlClient } => ({ ...Context.get(ctx, InboxWeb), sql: Context.get(ctx, SqlClient.SqlClient) })
  )

const replicas = Effect.gen(function* () {
  const dir = tempDir()
  return { dir, a: yield* replica(dir), b: yield* replica(dir) }
})

describe("operator sessions on two replicas of one database", () => {
  it.scoped("a session opened through A is honoured by B, with its CSRF token", () =>
    Effect.gen(function* () {
      const { a, b } = yield* replicas
      const { token, session } = yield* a.sessions.open
      const onB = yield* b.sessions.find(token)
      expect(Option.isSome(onB)).toBe(true)
      expect(Option.getOrThrow(onB).csrf).toBe(session.csrf)
      expect(Option.isSome(yield* a.sessions.find(token))).toBe(true)
      // Another token is no session on either.
      // (The last character changed to one it is not: a token's last base64url character takes only a
      // few values, so a fixed "A" was the token itself one time in four.)
      const other = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`
      expect(other).not.toBe(token)
      expect(Option.isNone(yield* b.sessions.find(other))).toBe(true)
    }))

  it.scoped("a sign-out through B ends the session on A too", () =>
    Effect.gen(function* () {
      const { a, b } = yield* replicas
      const { token } = yield* a.sessions.open
      const other = yield* b.sessions.open
      yield* b.sessions.close(token)
      expect(Option.isNone(yield* a.sessions.find(token))).toBe(true)
      expect(Option.isNone(yield* b.sessions.find(token))).toBe(true)
      // Only that session: the other browser stays signed in on both.
      expect(Option.isSome(yield* a.sessions.find(other.token))).toBe(true)
    }))

  it.scoped("a session ends on every replica at its end, twelve hours after sign-in", () =>
    Effect.gen(function* () {
      const { a, b } = yield* replicas
      const { token } = yield* b.sessions.open
      yield* TestClock.adjust(Duration.subtract(TTL, Duration.seconds(1)))
      expect(Option.isSome(yield* a.sessions.find(token))).toBe(true)
      yield* TestClock.adjust(Duration.seconds(1))
      expect(Option.isNone(yield* a.sessions.find(token))).toBe(true)
      expect(Option.isNone(yield* b.sessions.find(token))).toBe(true)
    }))

  it.scoped("a replica with another admin key honours none of the sessions opened under the old one", () =>
    Effect.gen(function* () {
      const { dir, a } = yield* replicas
      const { token } = yield* a.sessions.open
      const rotated = yield* replica(dir, OTHER_ADMIN_KEY)
      expect(Option.isNone(yield* rotated.sessions.find(token))).toBe(true)
      expect(Option.isSome(yield* a.sessions.find(token))).toBe(true)
    }))
})

describe("an open page's event stream", () => {
  it.live("on A it ends with `signedout` once the session is signed out through B", () =>
    Effect.gen(function* () {
      const { a, b } = yield* replicas
      const { token } = yield* a.sessions.open
      const frames = yield* sessionFeed(token, Stream.never).pipe(Stream.provideService(InboxWeb, a), Stream.runCollect, Effect.fork)
      yield* b.sessions.close(token)
      const collected = yield* Fiber.join(frames).pipe(Effect.timeout("20 seconds"))
      expect(Chunk.toReadonlyArray(collected).join("")).toContain("event: signedout")
    }).pipe(Effect.scoped))

  it.live("a session read that fails (the table is gone) ends nothing: the stream stays open", () =>
    Effect.gen(function* () {
      const { a } = yield* replicas
      const { token } = yield* a.sessions.open
      yield* a.sql.unsafe("DROP TABLE inbox_sessions").pipe(Effect.orDie)
      expect((yield* Effect.flip(a.sessions.find(token)))._tag).toBe("Internal")
      // Some 25 checks at 20 ms (the keep-alives), every one failing: no `signedout`.
      const frames = yield* sessionFeed(token, Stream.never).pipe(Stream.provideService(InboxWeb, a), Stream.interruptAfter("500 millis"), Stream.runCollect)
      expect(Chunk.toReadonlyArray(frames).join("")).not.toContain("signedout")
    }).pipe(Effect.scoped))
})

describe("the sign-in limit on two replicas of one database", () => {
  it.scoped("five wrong keys through A lock the address on B; a success through B frees it on A", () =>
    Effect.gen(function* () {
      const { a, b } = yield* replicas
      for (let i = 1; i <= 5; i++) {
        const on = i % 2 === 0 ? b : a
        expect(yield* on.sessions.signInLimit.attempt("203.0.113.9")).toEqual({ _tag: "Allowed", last: i === 5 })
      }
      expect(yield* b.sessions.signInLimit.attempt("203.0.113.9")).toEqual({ _tag: "Refused", retryAfterSeconds: 300 })
      expect(yield* a.sessions.signInLimit.attempt("203.0.113.9")).toMatchObject({ _tag: "Refused" })
      // Another address is not locked, on either.
      expect(yield* b.sessions.signInLimit.attempt("203.0.113.10")).toEqual({ _tag: "Allowed", last: false })
      yield* b.sessions.signInLimit.succeeded("203.0.113.10")
      // After the window, one attempt through B that succeeds starts the address over on A.
      yield* TestClock.adjust(Duration.minutes(5))
      expect(yield* b.sessions.signInLimit.attempt("203.0.113.9")).toEqual({ _tag: "Allowed", last: false })
      yield* b.sessions.signInLimit.succeeded("203.0.113.9")
      for (let i = 1; i <= 5; i++) expect(yield* a.sessions.signInLimit.attempt("203.0.113.9")).toEqual({ _tag: "Allowed", last: i === 5 })
    }))

  it.scoped("parallel guesses through both replicas: no more than five get past the gate", () =>
    Effect.gen(function* () {
      const { a, b } = yield* replicas
      const guesses = Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a : b).sessions.signInLimit.attempt("198.51.100.4"))
      const results = yield* Effect.all(guesses, { concurrency: "unbounded" })
      expect(results.filter((r) => r._tag === "Allowed")).toHaveLength(5)
    }))
})
