import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The 2025-era MCP sessions (src/services/mcp-sessions/McpSessionStore.ts), PostgreSQL's form: times
 * as BIGINT epoch milliseconds, and the change feed's statement-level trigger (migration 0008's
 * function) on the channel `agent_bridge_sessions`, so that a session closed through one replica
 * (DELETE, idle expiry) is closed on every replica.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE TABLE mcp_sessions (
    session_id TEXT PRIMARY KEY,
    client TEXT NOT NULL,
    server_kind TEXT NOT NULL,
    key_digest TEXT NOT NULL,
    protocol_version TEXT NOT NULL,
    client_info TEXT NOT NULL,
    capabilities TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL
  )`)
  yield* sql.unsafe(`CREATE INDEX mcp_sessions_client ON mcp_sessions (client, last_seen_at)`)
  yield* sql.unsafe(`CREATE INDEX mcp_sessions_last_seen ON mcp_sessions (last_seen_at)`)
  // Deletes only: a new session or a touch needs no other replica's attention.
  yield* sql.unsafe(
    `CREATE TRIGGER mcp_sessions_change_feed AFTER DELETE ON mcp_sessions FOR EACH STATEMENT EXECUTE FUNCTION agent_bridge_notify_table('sessions')`
  )
})
