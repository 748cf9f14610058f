/**
 * Every schema migration, in order, one list for both dialects: each entry has its SQLite form
 * (./sqlite/) and its PostgreSQL form (./pg/), and runs the one for the database it is applied to.
 * A migration whose SQL both accept is one form for both: a file (0005, 0013, 0015), or, for a few
 * statements, a `portable(...)` line of this list (a new column is one: `ALTER TABLE t ADD COLUMN c
 * TEXT`, with the types both take: TEXT, BIGINT for epoch milliseconds and counts, INTEGER for a 0/1
 * flag, JSON as TEXT). The key prefix is the version. Never edit an applied migration: add a new one.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import inboxHistory from "./0005_inbox_history.ts"
import pushSigningSecret from "./0013_push_signing_secret.ts"
import oauth from "./0015_oauth.ts"
import pgIdentity from "./pg/0001_identity.ts"
import pgLedger from "./pg/0002_ledger.ts"
import pgInbox from "./pg/0003_inbox.ts"
import pgMemory from "./pg/0004_memory.ts"
import pgConsole from "./pg/0006_console.ts"
import pgEpochMs from "./pg/0007_epoch_ms.ts"
import pgChangeFeed from "./pg/0008_change_feed.ts"
import pgRunFace from "./pg/0009_run_face.ts"
import pgA2aPush from "./pg/0010_a2a_push.ts"
import pgMcpSessions from "./pg/0011_mcp_sessions.ts"
import pgInboxSessions from "./pg/0012_inbox_sessions.ts"
import pgClientQuotas from "./pg/0014_client_quotas.ts"
import pgRunQueue from "./pg/0016_run_queue.ts"
import identity from "./sqlite/0001_identity.ts"
import ledger from "./sqlite/0002_ledger.ts"
import inbox from "./sqlite/0003_inbox.ts"
import memory from "./sqlite/0004_memory.ts"
import consoleStops from "./sqlite/0006_console.ts"
import epochMs from "./sqlite/0007_epoch_ms.ts"
import changeFeed from "./sqlite/0008_change_feed.ts"
import runFace from "./sqlite/0009_run_face.ts"
import a2aPush from "./sqlite/0010_a2a_push.ts"
import mcpSessions from "./sqlite/0011_mcp_sessions.ts"
import inboxSessions from "./sqlite/0012_inbox_sessions.ts"
import clientQuotas from "./sqlite/0014_client_quotas.ts"
import runQueue from "./sqlite/0016_run_queue.ts"

type Migration = Effect.Effect<unknown, unknown, SqlClient.SqlClient>

/** A migration in both forms; a database of any other dialect is refused, not migrated wrongly. */
export const forDialects = (forms: { readonly sqlite: Migration; readonly pg: Migration }): Migration =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.onDialectOrElse({
      sqlite: () => forms.sqlite,
      pg: () => forms.pg,
      orElse: () => Effect.fail(new Error("the bridge migrates SQLite and PostgreSQL databases only"))
    })
  )

/**
 * A migration of statements both dialects take as written, run in order (SQL only SQLite knows is
 * refused here by test/structure/dialect.test.ts, as anywhere outside SQLite's driver files).
 */
export const portable = (...statements: ReadonlyArray<string>): Migration =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.forEach(statements, (statement) => sql.unsafe(statement), { discard: true }))

export const migrations: Record<string, Migration> = {
  "0001_identity": forDialects({ sqlite: identity, pg: pgIdentity }),
  "0002_ledger": forDialects({ sqlite: ledger, pg: pgLedger }),
  "0003_inbox": forDialects({ sqlite: inbox, pg: pgInbox }),
  "0004_memory": forDialects({ sqlite: memory, pg: pgMemory }),
  "0005_inbox_history": inboxHistory,
  "0006_console": forDialects({ sqlite: consoleStops, pg: pgConsole }),
  "0007_epoch_ms": forDialects({ sqlite: epochMs, pg: pgEpochMs }),
  "0008_change_feed": forDialects({ sqlite: changeFeed, pg: pgChangeFeed }),
  "0009_run_face": forDialects({ sqlite: runFace, pg: pgRunFace }),
  "0010_a2a_push": forDialects({ sqlite: a2aPush, pg: pgA2aPush }),
  "0011_mcp_sessions": forDialects({ sqlite: mcpSessions, pg: pgMcpSessions }),
  "0012_inbox_sessions": forDialects({ sqlite: inboxSessions, pg: pgInboxSessions }),
  "0013_push_signing_secret": pushSigningSecret,
  "0014_client_quotas": forDialects({ sqlite: clientQuotas, pg: pgClientQuotas }),
  "0015_oauth": oauth,
  "0016_run_queue": forDialects({ sqlite: runQueue, pg: pgRunQueue }),
  // The counts every start makes read only their own rows: a profile's live runs (its load, its
  // slots), a client's live runs (its cap), a client's waiting runs (its queue). Without these,
  // SQLite counted through `runs_admitted` and `runs_by_client`, every run ever kept for the
  // profile or the client (test/storage/ledgerPlans.test.ts). `runs_live_client` begins with
  // 0002's `runs_live` (client, the live rows), which it replaces: one index to keep, not two.
  "0017_live_counts": portable(
    "CREATE INDEX runs_live_load ON runs (profile, status, admitted_at) WHERE ended_at IS NULL",
    "CREATE INDEX runs_live_client ON runs (client, status, admitted_at) WHERE ended_at IS NULL",
    "DROP INDEX runs_live",
    "CREATE INDEX runs_waiting_client ON runs (client) WHERE status = 'queued' AND admitted_at IS NULL"
  ),
  // Every UPDATE of a run's row adds one to its version, so a follower writes its next batch against
  // the row it wrote last without reading it again (`Ledger.modify`'s `expected`). Existing rows start at 0.
  "0018_run_version": portable("ALTER TABLE runs ADD COLUMN version BIGINT NOT NULL DEFAULT 0"),
  // A stop, and an answer, being asked of Hermes, stored before it is asked (`RunRecord.stopAsked`,
  // `answerAsked`): JSON text, null for none.
  "0019_run_asked": portable("ALTER TABLE runs ADD COLUMN stop_asked TEXT", "ALTER TABLE runs ADD COLUMN answer_asked TEXT")
}
