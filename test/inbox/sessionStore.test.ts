/**
 * The inbox's operator sessions and sign-in failures as rows (issue 37 item 6), on SQLite and
 * PostgreSQL: the cookie's token is never stored (the row is keyed by its HMAC under the admin
 * key's digest), the table keeps at most `MAX_SESSIONS` sessions, the retention sweep deletes ended
 * sessions and addresses with no failure left in the window (and nothing else, at start and then
 * hourly), and a database that fails a session's read or write is a typed store failure the page
 * answers with its code, never a sign-in form that hides it nor a defect; a failed cut of either
 * table is logged and costs nothing else.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Clock, Duration, Effect, Layer, Logger, Option, TestClock } from "effect"
import { createHash } from "node:crypto"
import { InboxWeb } from "../../src/edge/inbox/InboxWeb.ts"
import { INBOX_SESSIONS_MAX as MAX_SESSIONS } from "../../src/domain/limits.ts"
import { sessionDigest } from "../../src/edge/inbox/sessions.ts"
import { DEFAULT_SIGN_IN_LIMIT } from "../../src/edge/inbox/signInLimit.ts"
import { digestKey } from "../../src/services/auth/apiKeys.ts"
import { OperatorSessions } from "../../src/services/inbox/OperatorSessions.ts"
import { InboxSessionsRetention } from "../../src/services/inbox/sessionRetention.ts"
import { eventuallyUnderTestClock } from "../runs/support/harness.ts"
import { adminKey, makeBrowser, makeHarness } from "./support.ts"

const HOUR = 60 * 60 * 1000

const rows = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<Record<string, unknown>>`SELECT * FROM inbox_sessions`).pipe(Effect.orDie)
const failureRows = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ address: string }>`SELECT address FROM inbox_sign_in_failures ORDER BY address`).pipe(
  Effect.orDie
)
/** Every DELETE on `table` fails from now on (a trigger that raises), in the test's dialect. */
const refuseDeletes = (table: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.onDialectOrElse({
      sqlite: () => sql.unsafe(`CREATE TRIGGER refuse_${table} BEFORE DELETE ON ${table} BEGIN SELECT RAISE(ABORT, 'deletes refused by the test'); END`),
      pg: () =>
        sql.unsafe(`CREATE OR REPLACE FUNCTION refuse_deletes() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'deletes refused by the test'; END $$`).pipe(
          Effect.zipRight(sql.unsafe(`CREATE TRIGGER refuse_${table} BEFORE DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION refuse_deletes()`))
        ),
      orElse: () => Effect.dieMessage("no such dialect in the tests")
    })
  ).pipe(Effect.orDie)

const dropTable = (name: string) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`DROP TABLE ${name}`)).pipe(Effect.orDie)

describe("operator sessions as rows", () => {
  it.effect("the row holds an HMAC of the token under the admin key's digest, never the token or its plain SHA-256", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const web = yield* InboxWeb
      const { token, session } = yield* web.sessions.open
      const stored = yield* rows
      expect(stored).toHaveLength(1)
      const text = JSON.stringify(stored)
      expect(text).not.toContain(token)
      expect(text).not.toContain(createHash("sha256").update(token).digest("hex"))
      expect(stored[0]!["session_digest"]).toBe(sessionDigest(digestKey(yield* adminKey), token))
      expect(stored[0]!["csrf"]).toBe(session.csrf)
      expect(Number(stored[0]!["expires_at"]) - Number(stored[0]!["created_at"])).toBe(12 * HOUR)
    }).pipe(Effect.provide(h.layer))
  })

  it.effect(`at most ${MAX_SESSIONS} sessions are kept: the oldest ends first, the newest is honoured`, () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const web = yield* InboxWeb
      const tokens: Array<string> = []
      for (let i = 0; i < MAX_SESSIONS + 8; i++) {
        tokens.push((yield* web.sessions.open).token)
        yield* TestClock.adjust("1 second")
      }
      expect(yield* Effect.flatMap(OperatorSessions, (s) => s.size)).toBe(MAX_SESSIONS)
      expect(Option.isNone(yield* web.sessions.find(tokens[0]))).toBe(true)
      expect(Option.isNone(yield* web.sessions.find(tokens[7]))).toBe(true)
      expect(Option.isSome(yield* web.sessions.find(tokens[8]))).toBe(true)
      expect(Option.isSome(yield* web.sessions.find(tokens.at(-1)))).toBe(true)
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("a malformed cookie (empty, over 128 characters) is no session and reads nothing", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const web = yield* InboxWeb
      yield* dropTable("inbox_sessions")
      // Not even asked: the table is gone, and these still answer "no session".
      expect(Option.isNone(yield* web.sessions.find(""))).toBe(true)
      expect(Option.isNone(yield* web.sessions.find("x".repeat(129)))).toBe(true)
      expect(Option.isNone(yield* web.sessions.find(undefined))).toBe(true)
      yield* web.sessions.close(undefined)
    }).pipe(Effect.provide(h.layer))
  })
})

describe("the sweep of sessions and sign-in failures", () => {
  it.effect("deletes ended sessions and addresses with nothing left in the window, at start and then hourly; the rest stays", () => {
    const h = makeHarness({ sessionTtl: Duration.minutes(30) })
    return Effect.gen(function* () {
      const web = yield* InboxWeb
      const early = yield* web.sessions.open
      for (let i = 0; i < 3; i++) yield* web.sessions.signInLimit.attempt("192.0.2.1")
      yield* TestClock.adjust("20 minutes")
      const late = yield* web.sessions.open
      yield* web.sessions.signInLimit.attempt("192.0.2.2")
      yield* TestClock.adjust("2 minutes")
      // Both sessions are live (the early one ends 30 minutes after it opened: in 8 minutes).
      expect((yield* rows).length).toBe(2)
      yield* Layer.launch(InboxSessionsRetention(Duration.minutes(5))).pipe(Effect.forkScoped)
      const due = (yield* Clock.currentTimeMillis) + HOUR
      const asleep = eventuallyUnderTestClock(TestClock.sleeps(), (sleeps) => Chunk.filter(sleeps, (at) => at === due).length >= 2, "both sweepers asleep")
      yield* asleep
      // The start's sweep: 192.0.2.1's failures are 22 minutes old (out of the 5-minute window); 192.0.2.2's 2 minutes.
      expect((yield* failureRows).map((r) => r.address)).toEqual(["192.0.2.2"])
      expect((yield* rows).length).toBe(2)
      // An hour later both sessions have ended (and the other address's failures left the window).
      yield* TestClock.adjust("1 hour")
      yield* eventuallyUnderTestClock(rows, (r) => r.length === 0, "the ended sessions swept")
      yield* eventuallyUnderTestClock(failureRows, (r) => r.length === 0, "the old failures swept")
      expect(Option.isNone(yield* web.sessions.find(early.token))).toBe(true)
      expect(Option.isNone(yield* web.sessions.find(late.token))).toBe(true)
    }).pipe(Effect.scoped, Effect.provide(h.layer))
  })

  it.effect("a session is refused at its end even before any sweep", () => {
    const h = makeHarness({ sessionTtl: Duration.minutes(30) })
    return Effect.gen(function* () {
      const web = yield* InboxWeb
      const { token } = yield* web.sessions.open
      yield* TestClock.adjust("30 minutes")
      expect(Option.isNone(yield* web.sessions.find(token))).toBe(true)
      // The row is still there: only the read refused it.
      expect((yield* rows).length).toBe(1)
    }).pipe(Effect.provide(h.layer))
  })
})

describe("a database that fails the sessions' statements", () => {
  it.effect("a signed-in page whose session cannot be read answers the store's error (500, incident), not the sign-in form", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const b = yield* makeBrowser
      yield* b.signInAsAdmin
      yield* dropTable("inbox_sessions")
      const r = yield* b.call("GET", "/inbox")
      expect(r.status).toBe(500)
      expect(r.body).toMatch(/^bridge\.internal: internal error; incident inc_[0-9a-f]{16} is logged on the bridge/)
      const exit = yield* Effect.flatMap(InboxWeb, (web) => web.sessions.find("a-token")).pipe(Effect.flip)
      expect(exit._tag).toBe("Internal")
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("a sign-in whose attempt cannot be counted is refused with the store's error and opens no session", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const b = yield* makeBrowser
      yield* dropTable("inbox_sign_in_failures")
      const r = yield* b.signIn(yield* adminKey)
      expect(r.status).toBe(500)
      expect(r.body).toContain("bridge.internal")
      expect(r.setCookies.some((c) => c.startsWith("agent_bridge_inbox="))).toBe(false)
      expect((yield* rows).length).toBe(0)
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("a failed cut of the tables after a sign-in or an attempt is logged, and the session or the count stands", () => {
    const h = makeHarness({ sessionTtl: Duration.minutes(1), signInLimit: { ...DEFAULT_SIGN_IN_LIMIT, maxAddresses: 1 } })
    const lines: Array<string> = []
    const capture = Logger.replace(Logger.defaultLogger, Logger.make((o) => void lines.push(Logger.logfmtLogger.log(o))))
    return Effect.gen(function* () {
      const web = yield* InboxWeb
      yield* web.sessions.open
      expect(yield* web.sessions.signInLimit.attempt("192.0.2.1")).toEqual({ _tag: "Allowed", last: false })
      yield* TestClock.adjust("2 minutes")
      yield* refuseDeletes("inbox_sessions")
      yield* refuseDeletes("inbox_sign_in_failures")
      // The ended session cannot be deleted: the new one is recorded and honoured all the same.
      const { token } = yield* web.sessions.open
      expect(Option.isSome(yield* web.sessions.find(token))).toBe(true)
      expect(lines.some((l) => l.includes("inbox sessions: bounding the table failed"))).toBe(true)
      // The table is over its bound of one address and cannot be cut: the attempt counts anyway.
      expect(yield* web.sessions.signInLimit.attempt("192.0.2.2")).toEqual({ _tag: "Allowed", last: false })
      expect(yield* web.sessions.signInLimit.size).toBe(2)
      expect(lines.some((l) => l.includes("inbox sign-in limit: bounding the table failed"))).toBe(true)
    }).pipe(Effect.provide(h.layer), Effect.provide(capture))
  })
})
