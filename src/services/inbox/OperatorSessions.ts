/**
 * The owner of `inbox_sessions` (migration 0012): the operator's signed-in sessions of the inbox
 * page and console, as rows, so that every replica on one database honours a session another
 * replica opened, and a sign-out through one ends it on all (issue 37 item 6). Only storage: the
 * edge (`edge/inbox/sessions.ts`) makes the tokens, digests them and decides the lifetime; a row is
 * keyed by that digest, never by the token the cookie carries.
 *
 * Portable SQL only (both dialects take it). A failure is the inbox store's: a storage fault the
 * operator can fix is `bridge.store_unavailable`, anything else `bridge.internal` under an incident.
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, Layer, Option, Schema } from "effect"
import type { ParseError } from "effect/ParseResult"
import { AppConfig } from "../../config/AppConfig.ts"
import { databasePlace } from "../../storage/Db.ts"
import { failedAt, type StoreFailure } from "./InboxStore.ts"

export interface StoredOperatorSession {
  /** The digest of the cookie's token (`edge/inbox/sessions.ts`). */
  readonly digest: string
  /** The CSRF token of the forms this session's pages render. */
  readonly csrf: string
  readonly createdAt: number
  readonly expiresAt: number
}

export interface OperatorSessionsShape {
  /**
   * Records a session just opened, then deletes the sessions ended at its `createdAt` and the oldest
   * beyond `cap` (never the new one); only the record's failure is the call's.
   */
  readonly open: (session: StoredOperatorSession, cap: number) => Effect.Effect<void, StoreFailure>
  /** The session of this digest, unless it has ended at `now`. */
  readonly find: (digest: string, now: number) => Effect.Effect<Option.Option<StoredOperatorSession>, StoreFailure>
  /** Ends the session of this digest (sign-out, or a new sign-in in the same browser). */
  readonly close: (digest: string) => Effect.Effect<void, StoreFailure>
  /** Deletes the sessions ended at `now`; answers how many went (the retention sweep). */
  readonly expire: (now: number) => Effect.Effect<number, StoreFailure>
  /** How many sessions are recorded, ended or not (tests of the bound). */
  readonly size: Effect.Effect<number, StoreFailure>
}

export class OperatorSessions extends Context.Tag("agent-bridge/inbox/OperatorSessions")<OperatorSessions, OperatorSessionsShape>() {}

const Row = Schema.Struct({
  session_digest: Schema.String,
  csrf: Schema.String,
  // BIGINT arrives as text from node-postgres.
  created_at: Schema.Union(Schema.Int, Schema.NumberFromString),
  expires_at: Schema.Union(Schema.Int, Schema.NumberFromString)
})
const decodeRows = Schema.decodeUnknown(Schema.Array(Row))
const decodeCount = Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: Schema.Union(Schema.Int, Schema.NumberFromString) })))

/** Rows deleted at most by one trim past the cap (the table never holds many more than the cap). */
const TRIM_BATCH = 10_000

export const makeOperatorSessions: Effect.Effect<OperatorSessionsShape, never, SqlClient.SqlClient | AppConfig> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const failed = failedAt(databasePlace(yield* AppConfig))
  const mapped = <A>(what: string) => (q: Effect.Effect<A, SqlError | ParseError>) =>
    q.pipe(Effect.catchTags({ SqlError: failed(what), ParseError: failed(what) }))
  return {
    open: (s, cap) =>
      sql`INSERT INTO inbox_sessions (session_digest, csrf, created_at, expires_at)
        VALUES (${s.digest}, ${s.csrf}, ${s.createdAt}, ${s.expiresAt})`.pipe(
        mapped("record a session"),
        // The session stands once recorded: a failed cut (two replicas' cuts colliding on
        // PostgreSQL, say) is logged and left to the next sign-in or the retention sweep.
        Effect.zipRight(
          Effect.gen(function* () {
            yield* sql`DELETE FROM inbox_sessions WHERE expires_at <= ${s.createdAt}`
            yield* sql`DELETE FROM inbox_sessions WHERE session_digest <> ${s.digest} AND session_digest IN (
              SELECT session_digest FROM inbox_sessions WHERE session_digest <> ${s.digest}
              ORDER BY created_at DESC, session_digest LIMIT ${TRIM_BATCH} OFFSET ${Math.max(0, cap - 1)})`
          }).pipe(
            mapped("bound the sessions"),
            Effect.catchAll((e) => Effect.logWarning("inbox sessions: bounding the table failed; the next sign-in tries again", e))
          )
        )
      ),
    find: (digest, now) =>
      sql`SELECT * FROM inbox_sessions WHERE session_digest = ${digest} AND expires_at > ${now}`.pipe(
        Effect.flatMap(decodeRows),
        Effect.map((rows) =>
          Option.map(Option.fromNullable(rows[0]), (r) => ({ digest: r.session_digest, csrf: r.csrf, createdAt: r.created_at, expiresAt: r.expires_at }))
        ),
        mapped("read a session")
      ),
    close: (digest) => sql`DELETE FROM inbox_sessions WHERE session_digest = ${digest}`.pipe(Effect.asVoid, mapped("end a session")),
    expire: (now) =>
      sql`DELETE FROM inbox_sessions WHERE expires_at <= ${now} RETURNING session_digest`.pipe(Effect.map((rows) => rows.length), mapped("delete ended sessions")),
    size: sql`SELECT count(*) AS n FROM inbox_sessions`.pipe(
      Effect.flatMap(decodeCount),
      Effect.map((rows) => rows[0]?.n ?? 0),
      mapped("count sessions")
    )
  }
})

/** The operator sessions over the `SqlClient` in context. */
export const OperatorSessionsLive = Layer.effect(OperatorSessions, makeOperatorSessions)
