/**
 * The operator's console's read of the `clients` table, which Auth owns (the identity folder): every
 * client as the console lists it, and a version that moves when one is added, used, revoked or
 * rotated. Auth (`Auth.ts`) writes the table and authenticates; this only reads, and fails with the
 * store's own errors (a `SqlError`, or a `ParseError` for a row the bridge could not have written),
 * which the console's readers handle as they do every read of theirs.
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, Layer, Schema } from "effect"
import type { ParseError } from "effect/ParseResult"
import { IsoFromEpochMs } from "../../common/time.ts"

/** A client as the console lists it: times as ISO text, scopes as stored. */
export interface ClientListing {
  readonly name: string
  readonly scopes: ReadonlyArray<string>
  readonly createdAt: string
  readonly lastUsedAt: string | null
  readonly revokedAt: string | null
  /** How it connected: null for a key (`client add`), else the host its OAuth grant came from. */
  readonly oauthHost: string | null
}

export interface ClientsShape {
  /** Every client, by name. */
  readonly list: Effect.Effect<ReadonlyArray<ClientListing>, SqlError | ParseError>
  /** Text that changes when a client is added, used, revoked or rotated (it holds key digests: compare it, never show it). */
  readonly version: Effect.Effect<string, SqlError | ParseError>
}

export class Clients extends Context.Tag("agent-bridge/auth/Clients")<Clients, ClientsShape>() {}

/** A client's row: times from epoch ms (migration 0007) to the ISO text the console shows. */
const ClientRow = Schema.Struct({
  name: Schema.String,
  scopes: Schema.String,
  created_at: IsoFromEpochMs,
  last_used_at: Schema.NullOr(IsoFromEpochMs),
  revoked_at: Schema.NullOr(IsoFromEpochMs),
  via: Schema.NullOr(Schema.String),
  oauth_host: Schema.NullOr(Schema.String)
})
const decodeClients = Schema.decodeUnknown(Schema.Array(ClientRow))
const decodeValues = Schema.decodeUnknown(Schema.Array(Schema.Struct({ v: Schema.String })))

export const makeClients: Effect.Effect<ClientsShape, never, SqlClient.SqlClient> = Effect.map(SqlClient.SqlClient, (sql) => ({
  list: sql`SELECT name, scopes, created_at, last_used_at, revoked_at, via, oauth_host FROM clients ORDER BY name`.pipe(
    Effect.flatMap(decodeClients),
    Effect.map((rows) =>
      rows.map((r) => ({
        name: r.name,
        scopes: r.scopes.split(",").filter((s) => s.length > 0),
        createdAt: r.created_at,
        lastUsedAt: r.last_used_at,
        revokedAt: r.revoked_at,
        oauthHost: r.via === "oauth" ? r.oauth_host ?? "" : null
      }))
    )
  ),
  // Digests in name order, so the text is the same however the database returns the rows.
  version: Effect.all([
    sql`SELECT count(*) || '.' || coalesce(max(last_used_at), 0) || '.' || coalesce(max(revoked_at), 0) AS v FROM clients`.pipe(Effect.flatMap(decodeValues)),
    sql`SELECT key_digest AS v FROM clients ORDER BY name`.pipe(Effect.flatMap(decodeValues))
  ]).pipe(Effect.map(([head, digests]) => `${head[0]?.v ?? ""}.${digests.map((d) => d.v).join(",")}`))
}))

/** The console's read of the clients table over the `SqlClient` in context. */
export const ClientsLive = Layer.effect(Clients, makeClients)
