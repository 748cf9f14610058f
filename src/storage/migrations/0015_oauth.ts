import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * OAuth (docs/REFERENCE.md, "OAuth"; services/oauth/). SQL both dialects take (BIGINT is an integer
 * in SQLite too):
 *
 * - `oauth_store`: the authorization server's records (codes, access and refresh tokens, grants,
 *   interactions, sessions, dynamically registered clients), one row per model and id. The id is
 *   the SHA-256 digest of what the provider names it by (a code or a token is its own id), so the
 *   table holds no usable code or token; `uid` likewise. `payload` is the provider's JSON.
 * - `oauth_secrets`: the provider's cookie keys, made once and shared by every replica.
 * - `oauth_consents`: one authorization request waiting for the operator (or decided), by
 *   interaction; the inbox shows the pending ones.
 * - `clients` gains how a client connected: `via` ('oauth' for a client made by an approved
 *   grant; null for a key made with `client add`), the OAuth client id and the host it came from.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE oauth_store (
    model TEXT NOT NULL,
    id TEXT NOT NULL,
    grant_id TEXT,
    uid TEXT,
    user_code TEXT,
    payload TEXT NOT NULL,
    expires_at BIGINT,
    consumed_at BIGINT,
    PRIMARY KEY (model, id)
  )`
  yield* sql`CREATE INDEX oauth_store_grant ON oauth_store (grant_id)`
  yield* sql`CREATE INDEX oauth_store_uid ON oauth_store (uid)`
  yield* sql`CREATE INDEX oauth_store_expires ON oauth_store (expires_at)`
  yield* sql`CREATE TABLE oauth_secrets (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    created_at BIGINT NOT NULL
  )`
  yield* sql`CREATE TABLE oauth_consents (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL,
    client_name TEXT NOT NULL,
    client_host TEXT NOT NULL,
    redirect_host TEXT NOT NULL,
    scopes TEXT NOT NULL,
    resource TEXT NOT NULL,
    state TEXT NOT NULL,
    bridge_client TEXT,
    created_at BIGINT NOT NULL,
    decided_at BIGINT,
    decided_by TEXT
  )`
  yield* sql`CREATE INDEX oauth_consents_state ON oauth_consents (state, created_at)`
  yield* sql`ALTER TABLE clients ADD COLUMN via TEXT`
  yield* sql`ALTER TABLE clients ADD COLUMN oauth_client_id TEXT`
  yield* sql`ALTER TABLE clients ADD COLUMN oauth_host TEXT`
})
