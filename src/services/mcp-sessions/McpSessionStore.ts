/**
 * The 2025-era MCP sessions as rows (`mcp_sessions`, migration 0011), owned here: what every replica
 * on one database needs to serve a session another replica opened (issue 25 item 1). The MCP edge
 * (edge/mcp/McpSessions.ts) keeps each session's SDK server and transport in memory as before; this
 * store is what it records at `initialize`, looks up for a session id it has not seen, touches as
 * the session is used, and deletes on DELETE, idle expiry, the client's cap and revocation.
 *
 * A deleted row is heard by every replica (the change feed's `sessions` topic: PostgreSQL's trigger,
 * SQLite's `data_version`), which then closes its own copy of the session.
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, Layer, Option, Schema } from "effect"
import type { ParseError } from "effect/ParseResult"

/** What `initialize` said, and whose session it is. */
export interface StoredSession {
  readonly sessionId: string
  readonly client: string
  /** The MCP server it was opened on ("agents" or "memory"). */
  readonly kind: string
  /** SHA-256 of the key that opened it (never the key): a rotated key does not bring it back. */
  readonly keyDigest: string
  readonly protocolVersion: string
  readonly clientInfo: unknown
  readonly capabilities: unknown
  readonly lastSeenAt: number
}

const Row = Schema.Struct({
  session_id: Schema.String,
  client: Schema.String,
  server_kind: Schema.String,
  key_digest: Schema.String,
  protocol_version: Schema.String,
  client_info: Schema.parseJson(),
  capabilities: Schema.parseJson(),
  // BIGINT arrives as text from node-postgres.
  last_seen_at: Schema.Union(Schema.Int, Schema.NumberFromString)
})
const decodeRows = Schema.decodeUnknown(Schema.Array(Row))
const decodeIds = Schema.decodeUnknown(Schema.Array(Schema.Struct({ session_id: Schema.String })))

export type SessionStoreError = SqlError | ParseError

export interface McpSessionStoreShape {
  /** Records a session just opened; then deletes the client's oldest beyond `cap` (answers their ids). */
  readonly record: (session: StoredSession, cap: number) => Effect.Effect<ReadonlyArray<string>, SessionStoreError>
  /** The session, when it is recorded and was used since `notBefore` (epoch ms). */
  readonly find: (sessionId: string, notBefore: number) => Effect.Effect<Option.Option<StoredSession>, SessionStoreError>
  /** Moves its last use to `at`. */
  readonly touch: (sessionId: string, at: number) => Effect.Effect<void, SessionStoreError>
  /** Deletes these sessions. */
  readonly remove: (sessionIds: ReadonlyArray<string>) => Effect.Effect<void, SessionStoreError>
  /** Deletes the sessions unused since `before`; answers how many went. */
  readonly expire: (before: number) => Effect.Effect<number, SessionStoreError>
  /** Which of these sessions are still recorded. */
  readonly stillOpen: (sessionIds: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>, SessionStoreError>
}

export class McpSessionStore extends Context.Tag("agent-bridge/McpSessionStore")<McpSessionStore, McpSessionStoreShape>() {}

export const makeMcpSessionStore: Effect.Effect<McpSessionStoreShape, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const record: McpSessionStoreShape["record"] = (s, cap) =>
    Effect.gen(function* () {
      yield* sql`INSERT INTO mcp_sessions (session_id, client, server_kind, key_digest, protocol_version, client_info, capabilities, created_at, last_seen_at)
        VALUES (${s.sessionId}, ${s.client}, ${s.kind}, ${s.keyDigest}, ${s.protocolVersion}, ${JSON.stringify(s.clientInfo ?? {})},
          ${JSON.stringify(s.capabilities ?? {})}, ${s.lastSeenAt}, ${s.lastSeenAt})`
      const beyond = yield* sql`SELECT session_id FROM mcp_sessions WHERE client = ${s.client}
        ORDER BY last_seen_at DESC, session_id LIMIT 1000 OFFSET ${cap}`.pipe(Effect.flatMap(decodeIds))
      const ids = beyond.map((r) => r.session_id)
      if (ids.length > 0) yield* sql`DELETE FROM mcp_sessions WHERE ${sql.in("session_id", ids)}`
      return ids
    })
  return {
    record,
    find: (sessionId, notBefore) =>
      sql`SELECT * FROM mcp_sessions WHERE session_id = ${sessionId} AND last_seen_at >= ${notBefore}`.pipe(
        Effect.flatMap(decodeRows),
        Effect.map((rows) =>
          Option.map(Option.fromNullable(rows[0]), (r) => ({
            sessionId: r.session_id,
            client: r.client,
            kind: r.server_kind,
            keyDigest: r.key_digest,
            protocolVersion: r.protocol_version,
            clientInfo: r.client_info,
            capabilities: r.capabilities,
            lastSeenAt: r.last_seen_at
          }))
        )
      ),
    touch: (sessionId, at) => Effect.asVoid(sql`UPDATE mcp_sessions SET last_seen_at = ${at} WHERE session_id = ${sessionId} AND last_seen_at < ${at}`),
    remove: (ids) => (ids.length === 0 ? Effect.void : Effect.asVoid(sql`DELETE FROM mcp_sessions WHERE ${sql.in("session_id", ids)}`)),
    expire: (before) => sql`DELETE FROM mcp_sessions WHERE last_seen_at < ${before} RETURNING session_id`.pipe(Effect.map((rows) => rows.length)),
    stillOpen: (ids) =>
      ids.length === 0
        ? Effect.succeed(new Set<string>())
        : sql`SELECT session_id FROM mcp_sessions WHERE ${sql.in("session_id", ids)}`.pipe(
          Effect.flatMap(decodeIds),
          Effect.map((rows) => new Set(rows.map((r) => r.session_id)))
        )
  }
})

/** The sessions' store over the `SqlClient` in context. */
export const McpSessionStoreLive = Layer.effect(McpSessionStore, makeMcpSessionStore)
