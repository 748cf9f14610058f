/**
 * The owner of `oauth_store` and `oauth_secrets` (migration 0015): the authorization server's
 * records behind the adapter interface `oidc-provider` asks for (`providerAdapter.ts`), and its
 * cookie keys. Every id and uid is stored as its SHA-256 digest (a code or an opaque token is its
 * own id: the table holds none that works); `payload` is the provider's JSON. Expired rows are not
 * found, and are deleted at most once a minute by the next write. One SQL for both dialects
 * (`INSERT … ON CONFLICT` is SQLite's and PostgreSQL's alike), so every replica on one database
 * reads what another wrote: a code issued by one is redeemed at another.
 */
import { SqlClient } from "@effect/sql"
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { REGISTRATION_UNUSED_S } from "../../domain/oauth.ts"

export type StoredPayload = Record<string, unknown>

export interface OAuthStoreShape {
  readonly upsert: (model: string, id: string, payload: StoredPayload, expiresInS: number | undefined) => Effect.Effect<void>
  readonly find: (model: string, id: string) => Effect.Effect<Option.Option<StoredPayload>>
  readonly findByUid: (model: string, uid: string) => Effect.Effect<Option.Option<StoredPayload>>
  readonly findByUserCode: (model: string, userCode: string) => Effect.Effect<Option.Option<StoredPayload>>
  readonly consume: (model: string, id: string) => Effect.Effect<void>
  readonly destroy: (model: string, id: string) => Effect.Effect<void>
  /** Every record of a grant (its codes and tokens, whatever the model): revocation, a code's reuse. */
  readonly revokeByGrantId: (grantId: string) => Effect.Effect<void>
  /** Grant ids of every grant of an account (the bridge client), to end them all. */
  readonly grantsOf: (accountId: string) => Effect.Effect<ReadonlyArray<string>>
  /** Client registrations no approved grant uses yet and not expired: what the registration bound counts. */
  readonly pendingRegistrations: Effect.Effect<number>
  /** The named secret, made once (random) by the first replica that asks. */
  readonly secret: (name: string) => Effect.Effect<string>
  /** The named secret, `candidate` if no replica made it before. */
  readonly secretOr: (name: string, candidate: string) => Effect.Effect<string>
}

export class OAuthStore extends Context.Tag("agent-bridge/oauth/OAuthStore")<OAuthStore, OAuthStoreShape>() {}

export const digestOf = (id: string) => createHash("sha256").update(id, "utf8").digest("hex")

const Row = Schema.Struct({ payload: Schema.String, expires_at: Schema.NullOr(Schema.Number), consumed_at: Schema.NullOr(Schema.Number) })
const decodeRows = Schema.decodeUnknown(Schema.Array(Row))
const decodeValues = Schema.decodeUnknown(Schema.Array(Schema.Struct({ value: Schema.String })))
// count(*) is a number on SQLite and a bigint, as text, on PostgreSQL.
const decodeCount = Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: Schema.Union(Schema.Number, Schema.NumberFromString) })))
const decodeGrants = Schema.decodeUnknown(Schema.Array(Schema.Struct({ grant_id: Schema.String, payload: Schema.String })))
const PayloadJson = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
const decodePayload = Schema.decodeUnknown(PayloadJson)

const SWEEP_EVERY_MS = 60_000

/**
 * Models whose id is itself a credential (an opaque token, a code): the provider's payload repeats
 * the id as `jti`, which is therefore not stored; `find` (always by that id) puts it back.
 */
export const CREDENTIALS: ReadonlySet<string> = new Set([
  "AccessToken", "AuthorizationCode", "RefreshToken", "ClientCredentials", "DeviceCode",
  "BackchannelAuthenticationRequest", "RegistrationAccessToken", "InitialAccessToken", "PushedAuthorizationRequest"
])

const withoutId = (model: string, payload: StoredPayload): StoredPayload => {
  if (!CREDENTIALS.has(model)) return payload
  const { jti: _jti, ...rest } = payload
  return rest
}

export const makeOAuthStore: Effect.Effect<OAuthStoreShape, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  let lastSweep = 0
  // The authorization server has no typed failures of its own to give: a store that fails is a
  // defect here, which the provider answers as server_error (and the daemon logs).
  const run = <A, E>(e: Effect.Effect<A, E>) => Effect.orDie(e)

  const sweep = (now: number) =>
    now - lastSweep < SWEEP_EVERY_MS
      ? Effect.void
      : Effect.zipRight(Effect.sync(() => { lastSweep = now }), Effect.ignore(sql`DELETE FROM oauth_store WHERE expires_at IS NOT NULL AND expires_at < ${now}`))

  const live = (rows: ReadonlyArray<typeof Row.Type>, now: number) =>
    Effect.gen(function* () {
      const row = rows[0]
      if (row === undefined || (row.expires_at !== null && row.expires_at <= now)) return Option.none<StoredPayload>()
      const payload = yield* run(decodePayload(row.payload))
      return Option.some<StoredPayload>(row.consumed_at === null ? payload : { ...payload, consumed: Math.floor(row.consumed_at / 1000) })
    })

  const findWhere = (rows: Effect.Effect<ReadonlyArray<unknown>, unknown>) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.flatMap(run(Effect.flatMap(rows, decodeRows)), (r) => live(r, now)))

  const secretOr = (name: string, candidate: string) =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      // The first replica's value wins; every other one reads it back.
      yield* run(sql`INSERT INTO oauth_secrets (name, value, created_at) VALUES (${name}, ${candidate}, ${now}) ON CONFLICT (name) DO NOTHING`)
      const rows = yield* run(Effect.flatMap(sql`SELECT value FROM oauth_secrets WHERE name = ${name}`, decodeValues))
      return rows[0]?.value ?? candidate
    })

  return {
    upsert: (model, id, payload, expiresInS) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        // A client's registration has no expiry of the provider's: it gets one here, until a grant
        // the operator approved uses it (below), so that registrations nobody approves go.
        const expiresAt = expiresInS !== undefined ? now + expiresInS * 1000 : model === "Client" ? now + REGISTRATION_UNUSED_S * 1000 : null
        // A grant is filed under its own id, so that ending a grant ends the grant with its tokens.
        const grantId = model === "Grant" ? id : typeof payload["grantId"] === "string" ? payload["grantId"] : null
        const uid = typeof payload["uid"] === "string" ? digestOf(payload["uid"]) : null
        const userCode = typeof payload["userCode"] === "string" ? digestOf(payload["userCode"]) : null
        const text = JSON.stringify(withoutId(model, payload))
        yield* run(sql`INSERT INTO oauth_store (model, id, grant_id, uid, user_code, payload, expires_at, consumed_at)
          VALUES (${model}, ${digestOf(id)}, ${grantId}, ${uid}, ${userCode}, ${text}, ${expiresAt}, NULL)
          ON CONFLICT (model, id) DO UPDATE SET grant_id = excluded.grant_id, uid = excluded.uid, user_code = excluded.user_code,
            payload = excluded.payload, expires_at = excluded.expires_at`)
        if (model === "Grant" && typeof payload["clientId"] === "string") {
          yield* run(sql`UPDATE oauth_store SET expires_at = NULL WHERE model = 'Client' AND id = ${digestOf(payload["clientId"])}`)
        }
        yield* sweep(now)
      }),
    find: (model, id) =>
      Effect.map(
        findWhere(sql`SELECT payload, expires_at, consumed_at FROM oauth_store WHERE model = ${model} AND id = ${digestOf(id)}`),
        Option.map((p) => (CREDENTIALS.has(model) ? { ...p, jti: id } : p))
      ),
    findByUid: (model, uid) => findWhere(sql`SELECT payload, expires_at, consumed_at FROM oauth_store WHERE model = ${model} AND uid = ${digestOf(uid)}`),
    findByUserCode: (model, userCode) =>
      findWhere(sql`SELECT payload, expires_at, consumed_at FROM oauth_store WHERE model = ${model} AND user_code = ${digestOf(userCode)}`),
    consume: (model, id) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        run(sql`UPDATE oauth_store SET consumed_at = ${now} WHERE model = ${model} AND id = ${digestOf(id)} AND consumed_at IS NULL`)),
    destroy: (model, id) => run(sql`DELETE FROM oauth_store WHERE model = ${model} AND id = ${digestOf(id)}`),
    revokeByGrantId: (grantId) => run(sql`DELETE FROM oauth_store WHERE grant_id = ${grantId}`),
    // Grants are few (one per approved connection): read them all, match the account in the JSON.
    grantsOf: (accountId) =>
      Effect.gen(function* () {
        const rows = yield* run(Effect.flatMap(sql`SELECT grant_id, payload FROM oauth_store WHERE model = 'Grant' AND grant_id IS NOT NULL`, decodeGrants))
        const out: Array<string> = []
        for (const row of rows) {
          const payload = yield* run(decodePayload(row.payload))
          if (payload["accountId"] === accountId) out.push(row.grant_id)
        }
        return out
      }),
    pendingRegistrations: Effect.flatMap(Clock.currentTimeMillis, (now) =>
      run(Effect.flatMap(sql`SELECT count(*) AS n FROM oauth_store WHERE model = 'Client' AND expires_at IS NOT NULL AND expires_at > ${now}`, decodeCount))
        .pipe(Effect.map((rows) => rows[0]?.n ?? 0))),
    secret: (name) => secretOr(name, randomBytes(32).toString("base64url")),
    secretOr
  }
})

export const OAuthStoreLive = Layer.effect(OAuthStore, makeOAuthStore)
