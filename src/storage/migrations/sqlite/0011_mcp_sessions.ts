import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The 2025-era MCP sessions (src/services/mcp-sessions/McpSessionStore.ts): one row per open session,
 * so that any replica on the same database can serve it (issue 25 item 1). What the handshake said
 * (protocol version, client info and capabilities, as JSON text) is what a replica needs to rebuild
 * the session's SDK server; `key_digest` binds it to the key that opened it. Closed: the row is gone.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE mcp_sessions (
    session_id TEXT PRIMARY KEY,
    client TEXT NOT NULL,
    server_kind TEXT NOT NULL,
    key_digest TEXT NOT NULL,
    protocol_version TEXT NOT NULL,
    client_info TEXT NOT NULL,
    capabilities TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL
  )`
  yield* sql`CREATE INDEX mcp_sessions_client ON mcp_sessions (client, last_seen_at)`
  yield* sql`CREATE INDEX mcp_sessions_last_seen ON mcp_sessions (last_seen_at)`
})
