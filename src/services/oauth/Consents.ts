/**
 * The owner of `oauth_consents` (migration 0015): an authorization request waiting for the
 * operator, one row per interaction (the provider's uid for the browser's flow). The browser's
 * page opens it and waits on it; the inbox lists the pending ones and decides them; a row not
 * decided within `oauth.consent_timeout_s` is expired when next read. Each write moves the inbox's
 * change counter, so the inbox page's event stream shows the row at once on this replica.
 */
import { SqlClient } from "@effect/sql"
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { IsoFromEpochMs } from "../../common/time.ts"
import { MAX_PENDING_CONSENTS } from "../../domain/oauth.ts"
import { InboxChanges, InboxChangesLive } from "../inbox/InboxChanges.ts"
import { DbMemory } from "../../storage/Db.ts"

export interface ConsentRequest {
  readonly id: string
  readonly client_id: string
  readonly client_name: string
  /** The host that speaks for the client: its metadata document's, or for a registered client its redirect's. */
  readonly client_host: string
  readonly redirect_host: string
  readonly scopes: ReadonlyArray<string>
  readonly resource: string
}

export type ConsentState = "pending" | "approved" | "denied" | "expired"

export interface Consent extends ConsentRequest {
  readonly state: ConsentState
  readonly bridge_client: string | null
  readonly created_at: string
  readonly decided_at: string | null
  readonly decided_by: string | null
}

export interface ConsentsShape {
  /**
   * The row for this interaction, opened pending if there is none; none when there is none and
   * `MAX_PENDING_CONSENTS` already wait.
   */
  readonly open: (request: ConsentRequest) => Effect.Effect<Option.Option<Consent>>
  readonly get: (id: string) => Effect.Effect<Option.Option<Consent>>
  readonly pending: Effect.Effect<ReadonlyArray<Consent>>
  /** Decides a pending row; none when it was not pending (decided elsewhere, expired, unknown). */
  readonly decide: (id: string, decision: { readonly approve: boolean; readonly by: string; readonly bridgeClient?: string | undefined }) => Effect.Effect<Option.Option<Consent>>
}

export class Consents extends Context.Tag("agent-bridge/oauth/Consents")<Consents, ConsentsShape>() {}

const Row = Schema.Struct({
  id: Schema.String,
  client_id: Schema.String,
  client_name: Schema.String,
  client_host: Schema.String,
  redirect_host: Schema.String,
  scopes: Schema.String,
  resource: Schema.String,
  state: Schema.Literal("pending", "approved", "denied", "expired"),
  bridge_client: Schema.NullOr(Schema.String),
  created_at: IsoFromEpochMs,
  decided_at: Schema.NullOr(IsoFromEpochMs),
  decided_by: Schema.NullOr(Schema.String)
})
const decodeRows = Schema.decodeUnknown(Schema.Array(Row))
const toConsent = (r: typeof Row.Type): Consent => ({ ...r, scopes: r.scopes.split(" ").filter((s) => s.length > 0) })

export const ConsentsLive = (timeoutS: number) =>
  Layer.effect(
    Consents,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const changes = yield* InboxChanges
      // A store failure here is a defect: the page answers 500 and the daemon logs it.
      const read = (q: Effect.Effect<ReadonlyArray<unknown>, unknown>) => Effect.orDie(Effect.flatMap(q, decodeRows))
      const expire = Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.orDie(sql`UPDATE oauth_consents SET state = 'expired', decided_at = ${now} WHERE state = 'pending' AND created_at < ${now - timeoutS * 1000}`))
      const get: ConsentsShape["get"] = (id) =>
        Effect.zipRight(expire, Effect.map(read(sql`SELECT * FROM oauth_consents WHERE id = ${id}`), (rows) => Option.map(Option.fromNullable(rows[0]), toConsent)))
      return {
        open: (r) =>
          Effect.gen(function* () {
            const existing = yield* get(r.id)
            if (Option.isSome(existing)) return existing
            const waiting = yield* read(sql`SELECT * FROM oauth_consents WHERE state = 'pending'`)
            if (waiting.length >= MAX_PENDING_CONSENTS) return Option.none<Consent>()
            const now = yield* Clock.currentTimeMillis
            yield* Effect.orDie(sql`INSERT INTO oauth_consents (id, client_id, client_name, client_host, redirect_host, scopes, resource, state, created_at)
              VALUES (${r.id}, ${r.client_id}, ${r.client_name}, ${r.client_host}, ${r.redirect_host}, ${r.scopes.join(" ")}, ${r.resource}, 'pending', ${now})
              ON CONFLICT (id) DO NOTHING`)
            yield* changes.bump
            return yield* get(r.id)
          }),
        get,
        pending: Effect.zipRight(expire, Effect.map(read(sql`SELECT * FROM oauth_consents WHERE state = 'pending' ORDER BY created_at`), (rows) => rows.map(toConsent))),
        decide: (id, d) =>
          Effect.gen(function* () {
            yield* expire
            const now = yield* Clock.currentTimeMillis
            const state = d.approve ? "approved" : "denied"
            const updated = yield* read(sql`UPDATE oauth_consents SET state = ${state}, decided_at = ${now}, decided_by = ${d.by}, bridge_client = ${d.bridgeClient ?? null}
              WHERE id = ${id} AND state = 'pending' RETURNING *`)
            yield* changes.bump
            return Option.map(Option.fromNullable(updated[0]), toConsent)
          })
      }
    })
  )

/** `ConsentsTest`: the real rows over a fresh in-memory database (migrated), with its own inbox counter; records every request and decision. */
export const ConsentsTest = (timeoutS = 600) => ConsentsLive(timeoutS).pipe(Layer.provideMerge(InboxChangesLive), Layer.provideMerge(DbMemory))
