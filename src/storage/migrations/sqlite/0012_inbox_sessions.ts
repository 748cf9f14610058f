import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The inbox page's operator sessions and its sign-in limit, in the database so that every replica
 * on one database honours them (issue 37 item 6). `inbox_sessions` (services/inbox/OperatorSessions.ts):
 * one row per signed-in browser, keyed by a digest of its cookie token (never the token), with the
 * session's CSRF token and its end. `inbox_sign_in_failures` (services/inbox/SignInFailures.ts): per
 * client address, the times of its recent wrong keys (a JSON array of epoch ms, at most the limit's
 * count) and the newest of them.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE inbox_sessions (
    session_digest TEXT PRIMARY KEY,
    csrf TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  )`
  yield* sql`CREATE INDEX inbox_sessions_expires ON inbox_sessions (expires_at)`
  yield* sql`CREATE INDEX inbox_sessions_created ON inbox_sessions (created_at)`
  yield* sql`CREATE TABLE inbox_sign_in_failures (
    address TEXT PRIMARY KEY,
    failures TEXT NOT NULL,
    last_failure_at INTEGER NOT NULL
  )`
  yield* sql`CREATE INDEX inbox_sign_in_failures_last ON inbox_sign_in_failures (last_failure_at)`
})
