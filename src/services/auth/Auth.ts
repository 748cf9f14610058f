/**
 * Identity: bridge clients (name, scopes, key digest, created / last-used / revoked) and the admin key.
 * `authenticate` turns a bearer token into a `Caller`; everything else is the CLI's client management.
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Context, type Duration, Effect, Layer, Option, Redacted, Stream } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { AppConfig } from "../../config/AppConfig.ts"
import { ClientName } from "../../config/schema.ts"
import { digestKey, newKey, sameDigest } from "./apiKeys.ts"
import { makeLiveKeys } from "./liveKeys.ts"
import { Schema } from "effect"
import { Caller, type CallerShape, type Scope } from "../../request/Caller.ts"
import { Redactor } from "../../common/Redactor.ts"
import { iso, IsoFromEpochMs, nowIso } from "../../common/time.ts"
import { ChangeFeed } from "../../storage/ChangeFeed.ts"
import { databasePlace } from "../../storage/Db.ts"
import { storageFaultMessage, storageFaultOf } from "../../storage/faults.ts"
import { StoreUnavailable } from "../../domain/errors.ts"
import { BRIDGE_KEY_PREFIX } from "../../domain/bridgeKeys.ts"
import { BearerTokens } from "./BearerTokens.ts"

export interface ClientRecord {
  readonly name: string
  readonly scopes: ReadonlyArray<Scope>
  readonly created_at: string
  readonly last_used_at: string | null
  readonly revoked_at: string | null
  /** How it connected, for a client made by an approved OAuth grant (absent for a key). */
  readonly via?: OAuthOrigin | undefined
}

/** Where an OAuth client came from: its OAuth client id and the host that speaks for it. */
export interface OAuthOrigin {
  readonly kind: "oauth"
  readonly client_id: string
  readonly host: string
}

export class ClientError extends Schema.TaggedError<ClientError>()("ClientError", { message: Schema.String }) {}

export interface AuthShape {
  /**
   * The caller a key names, or none. The database server out (PostgreSQL restarting) is
   * `bridge.store_unavailable`, retryable, not a defect: the key may well be valid.
   */
  readonly authenticate: (token: string | undefined) => Effect.Effect<Option.Option<CallerShape>, StoreUnavailable>
  readonly addClient: (name: string, scopes: ReadonlyArray<Scope>) => Effect.Effect<{ readonly key: string; readonly client: ClientRecord }, ClientError>
  readonly listClients: Effect.Effect<ReadonlyArray<ClientRecord>>
  readonly revoke: (name: string) => Effect.Effect<ClientRecord, ClientError>
  readonly rotate: (name: string) => Effect.Effect<{ readonly key: string; readonly client: ClientRecord }, ClientError>
  /**
   * The client an approved OAuth grant acts as: the live one already made for this OAuth client id,
   * else a new one named after `name` (made unique), with no usable key (its tokens are OAuth's).
   */
  readonly oauthClient: (name: string, scopes: ReadonlyArray<Scope>, origin: OAuthOrigin) => Effect.Effect<ClientRecord, ClientError>
  /** The admin key (created on first start in `<data_dir>/admin.key`, mode 0600). */
  readonly adminKey: Redacted.Redacted<string>
  /**
   * An element whenever a key may have stopped authenticating: after this process's revoke or
   * rotate at once, and after another process's commit to the database (the CLI's `client revoke`),
   * which the process's `ChangeFeed` notices (topic `keys`; on SQLite every 500 ms). The edge
   * re-checks the keys of what it holds open on each. `every` is no longer used: the feed sets the
   * pace for the whole process (the argument stays for callers written against the older shape).
   */
  readonly changes: (every?: Duration.DurationInput) => Stream.Stream<void>
}

export const ADMIN_KEY_FILE = "admin.key"
/**
 * Names that would collide with the admin identity or with memory namespaces the bridge derives from
 * agent ids (`private:hermes`, `private:hermes__<profile>`, `shared`).
 */
const RESERVED_NAMES = /^(admin|shared|hermes|hermes__.*)$/

/** Last-used times are written at most this often per client, so auth stays off the write path. */
const LAST_USED_RESOLUTION_MS = 60_000
/** At most this many valid keys are remembered (then the memory starts over). */
const REMEMBERED_KEYS = 1024

/**
 * Reads the admin key from the data dir, creating it (0600) on first start. Plain node:fs, once,
 * while the layer is built: Effect's FileSystem here would put a FileSystem into every harness that
 * builds `Auth` (dozens of tests, each over its own temp data dir, which is the double they need).
 */
export const loadAdminKey = (dataDir: string): string => {
  const file = path.join(dataDir, ADMIN_KEY_FILE)
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  try {
    const existing = fs.readFileSync(file, "utf8").trim()
    if (existing.length > 0) return existing
  } catch {
    // absent: created below
  }
  const key = newKey()
  fs.writeFileSync(file, `${key}\n`, { mode: 0o600, flag: "w" })
  fs.chmodSync(file, 0o600)
  return key
}

/** A `clients` row, decoded: times from epoch milliseconds (migration 0007) to the ISO text records show. */
const ClientRow = Schema.Struct({
  name: Schema.String,
  key_digest: Schema.String,
  scopes: Schema.String,
  created_at: IsoFromEpochMs,
  last_used_at: Schema.NullOr(IsoFromEpochMs),
  revoked_at: Schema.NullOr(IsoFromEpochMs),
  // Migration 0015 (absent from a row read before it).
  via: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  oauth_client_id: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  oauth_host: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
})
type ClientRow = typeof ClientRow.Type
const decodeClients = Schema.decodeUnknown(Schema.Array(ClientRow))
const encodeClient = Schema.encode(ClientRow)
const LiveDigests = Schema.Array(Schema.Struct({ key_digest: Schema.String }))

const toRecord = (r: ClientRow): ClientRecord => ({
  name: r.name,
  scopes: r.scopes.split(",").filter((s): s is Scope => s === "agents" || s === "memory" || s === "a2a"),
  created_at: r.created_at,
  last_used_at: r.last_used_at,
  revoked_at: r.revoked_at,
  ...(r.via === "oauth" ? { via: { kind: "oauth" as const, client_id: r.oauth_client_id ?? "", host: r.oauth_host ?? "" } } : {})
})

/**
 * Every key has `agents`; `a2a` and `memory` only when asked for. A row keeps exactly what was
 * granted: a key made before the A2A face existed has no `a2a` (docs/REFERENCE.md, "Scopes").
 */
const normalizeScopes = (scopes: ReadonlyArray<Scope>): ReadonlyArray<Scope> => [
  "agents",
  ...(scopes.includes("a2a") ? ["a2a" as const] : []),
  ...(scopes.includes("memory") ? ["memory" as const] : [])
]

/**
 * A client name for an OAuth client's own name ("ChatGPT" → "chatgpt"): lowercase, other characters
 * as '-', at most 32; a reserved or empty result is prefixed `oauth-`.
 */
export const oauthNameOf = (wanted: string): string => {
  const folded = wanted.toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^[-_]+|[-_]+$/g, "").slice(0, 32).replace(/[-_]+$/, "")
  const name = folded.length === 0 ? "oauth" : RESERVED_NAMES.test(folded) ? `oauth-${folded}`.slice(0, 32) : folded
  return Schema.is(ClientName)(name) ? name : "oauth"
}

export class Auth extends Context.Tag("agent-bridge/Auth")<Auth, AuthShape>() {}

/**
 * The production Auth over the `clients` table. The admin key and the metrics token are registered
 * with the Redactor at start; a client key whenever this process sees it in plain text, until it
 * goes (`liveKeys.ts`). Another process's revoke reaches it through the process's `ChangeFeed`.
 */
export const AuthLive = Layer.effect(
  Auth,
  Effect.gen(function* () {
    const config = yield* AppConfig
    const sql = yield* SqlClient.SqlClient
    const redactor = yield* Redactor
    const feed = yield* ChangeFeed
    const admin = config.bridge.admin_key !== undefined ? Redacted.value(config.bridge.admin_key) : loadAdminKey(config.dataDir)
    const adminDigest = digestKey(admin)
    yield* redactor.registerSecret(admin)
    // The metrics token is a key the bridge holds too: never shown to a remote machine.
    if (config.bridge.metrics_token !== undefined) yield* redactor.registerSecret(Redacted.value(config.bridge.metrics_token))
    const liveKeys = makeLiveKeys(redactor)
    const lastWritten = new Map<string, number>()
    // Storage failures in identity, and rows that do not decode, are defects: the edge reports
    // them as bridge.internal.
    const orDie = <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.orDie(e)
    const clientRows = (q: Effect.Effect<ReadonlyArray<unknown>, SqlError>) => orDie(Effect.flatMap(q, decodeClients))
    // A request's key check: an outage of the database server is the caller's to retry.
    const place = databasePlace(config)
    const keyRows = (q: Effect.Effect<ReadonlyArray<unknown>, SqlError>) =>
      Effect.flatMap(q, decodeClients).pipe(
        Effect.catchAll((e) => {
          const fault = e._tag === "SqlError" ? storageFaultOf(e) : null
          if (fault === null || (fault.kind !== "unavailable" && fault.kind !== "timeout")) return Effect.die(e)
          const message = storageFaultMessage(fault, "checking the key", place)
          return Effect.logWarning(message).pipe(Effect.zipRight(Effect.fail(new StoreUnavailable({ message }))))
        })
      )

    const find = (name: string) =>
      clientRows(sql`SELECT * FROM clients WHERE name = ${name}`).pipe(Effect.map((rows) => Option.fromNullable(rows[0])))

    const touch = (name: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (t) => {
        if (t - (lastWritten.get(name) ?? 0) < LAST_USED_RESOLUTION_MS) return Effect.void
        lastWritten.set(name, t)
        return Effect.ignore(sql`UPDATE clients SET last_used_at = ${t} WHERE name = ${name}`)
      })

    /**
     * Keys found valid, by digest, so that a request of a known key needs no database read. Kept
     * only while a `changes` stream is being watched (the MCP edge's): that watch is what notices
     * another process's revoke, and it forgets every key (`forget`) before it tells its watcher,
     * so the watcher's re-check of what is open reads the database. This process's own revoke and
     * rotate forget at once. A key refused is never remembered.
     */
    const known = new Map<string, CallerShape>()
    let watchers = 0
    // Moves on each forget, so that a read that began before one is not remembered after it.
    let generation = 0
    const forget = Effect.sync(() => {
      generation += 1
      known.clear()
    })

    const bearer = Option.getOrUndefined(yield* Effect.serviceOption(BearerTokens))
    // A token's grant holds only while its client is live: revoked, its tokens are refused here.
    const oauthCaller = (token: string) =>
      Effect.gen(function* () {
        const grant = yield* bearer!.lookup(token)
        if (Option.isNone(grant)) return Option.none<CallerShape>()
        const rows = yield* keyRows(sql`SELECT * FROM clients WHERE name = ${grant.value.client} AND revoked_at IS NULL AND via = 'oauth'`)
        const row = rows[0]
        if (row === undefined) return yield* Effect.as(bearer!.refused(token), Option.none<CallerShape>())
        yield* touch(row.name)
        return Option.some<CallerShape>({ client: row.name, isAdmin: false, scopes: toRecord(row).scopes, audience: grant.value.audience })
      })

    const authenticate: AuthShape["authenticate"] = (token) =>
      Effect.suspend(() => {
        if (token === undefined || token.length === 0 || token.length > 512) return Effect.succeed(Option.none())
        const digest = digestKey(token)
        if (sameDigest(digest, adminDigest)) return Effect.succeed(Option.some<CallerShape>(Caller.admin))
        // Not a bridge key: an OAuth access token, when OAuth is on (BearerTokens.ts).
        if (bearer !== undefined && !token.startsWith(BRIDGE_KEY_PREFIX)) return oauthCaller(token)
        const cached = watchers > 0 ? known.get(digest) : undefined
        if (cached !== undefined) return Effect.as(touch(cached.client), Option.some(cached))
        const readAt = generation
        return Effect.gen(function* () {
          const rows = yield* keyRows(sql`SELECT * FROM clients WHERE key_digest = ${digest} AND revoked_at IS NULL`)
          const row = rows[0]
          // A key refused may be one this process knew (revoked by another process since).
          if (row === undefined || !sameDigest(row.key_digest, digest)) return yield* Effect.as(liveKeys.gone(digest), Option.none())
          yield* liveKeys.saw(token, digest)
          yield* touch(row.name)
          const caller: CallerShape = { client: row.name, isAdmin: false, scopes: toRecord(row).scopes }
          if (watchers > 0 && readAt === generation) {
            if (known.size >= REMEMBERED_KEYS) known.clear()
            known.set(digest, caller)
          }
          return Option.some(caller)
        })
      })

    const issue = (name: string) => {
      const key = newKey()
      return { key, digest: digestKey(key) }
    }

    const addClient: AuthShape["addClient"] = (name, scopes) =>
      Effect.gen(function* () {
        if (!Schema.is(ClientName)(name) || RESERVED_NAMES.test(name)) {
          return yield* new ClientError({
            message: `invalid client name '${name}': lowercase letters, digits, '_' and '-', at most 32; "admin", "shared", "hermes" and "hermes__*" are reserved`
          })
        }
        if (Option.isSome(yield* find(name))) return yield* new ClientError({ message: `client '${name}' already exists (use rotate for a new key)` })
        const { key, digest } = issue(name)
        const row: ClientRow = { name, key_digest: digest, scopes: normalizeScopes(scopes).join(","), created_at: yield* nowIso, last_used_at: null, revoked_at: null, via: null, oauth_client_id: null, oauth_host: null }
        const columns = yield* orDie(encodeClient(row))
        yield* orDie(sql`INSERT INTO clients ${sql.insert({ ...columns })}`)
        yield* liveKeys.saw(key, digest)
        return { key, client: toRecord(row) }
      })

    // A name that could never be a client's (a NUL, which PostgreSQL cannot look up, among others)
    // is no client: refused as such without a query.
    const existing = (name: string) =>
      Effect.flatMap(Schema.is(ClientName)(name) ? find(name) : Effect.succeedNone, Option.match({
        onNone: () => Effect.fail(new ClientError({ message: `no client named '${name}'` })),
        onSome: Effect.succeed
      }))

    const revoke: AuthShape["revoke"] = (name) =>
      Effect.gen(function* () {
        const row = yield* existing(name)
        if (row.revoked_at !== null) return toRecord(row)
        const at = yield* Clock.currentTimeMillis
        yield* orDie(sql`UPDATE clients SET revoked_at = ${at} WHERE name = ${name}`)
        yield* liveKeys.gone(row.key_digest)
        yield* forget
        yield* changed
        return toRecord({ ...row, revoked_at: iso(at) })
      })

    const rotate: AuthShape["rotate"] = (name) =>
      Effect.gen(function* () {
        const row = yield* existing(name)
        // Its grants would come back to life with it: an OAuth client connects again instead.
        if (row.via === "oauth") {
          return yield* new ClientError({ message: `client '${name}' connected with OAuth and has no key to rotate (revoke it; it may connect again)` })
        }
        const { key, digest } = issue(name)
        yield* orDie(sql`UPDATE clients SET key_digest = ${digest}, revoked_at = NULL WHERE name = ${name}`)
        yield* liveKeys.gone(row.key_digest)
        yield* liveKeys.saw(key, digest)
        yield* forget
        yield* changed
        return { key, client: toRecord({ ...row, key_digest: digest, revoked_at: null }) }
      })

    // This process's revoke and rotate have already forgotten; another process's commit (the feed
    // cannot say it was to `clients`) may have revoked a remembered key: it is forgotten, and a key
    // known here whose digest has no live row any more is unregistered, before the watcher is told.
    // A watch counts (keys are remembered) only once its subscription is taken, so no commit the
    // feed notices after a key is remembered can pass it by.
    const changed = feed.notify("keys")
    const liveDigests = orDie(Effect.flatMap(sql`SELECT key_digest FROM clients WHERE revoked_at IS NULL`, Schema.decodeUnknown(LiveDigests))).pipe(
      Effect.map((rows) => new Set(rows.map((r) => r.key_digest)))
    )
    const unwatch = Effect.sync(() => {
      watchers -= 1
      if (watchers === 0) {
        generation += 1
        known.clear()
      }
    })
    const changes: AuthShape["changes"] = () =>
      Stream.unwrapScoped(
        Effect.gen(function* () {
          const subscribed = yield* feed.subscribe("keys")
          // A read that began before the subscription is not remembered (it may predate a commit
          // the feed reported before this subscriber was there to hear it).
          yield* Effect.acquireRelease(Effect.sync(() => { watchers += 1; generation += 1 }), () => unwatch)
          return subscribed.pipe(
            Stream.tap((change) => (change.origin === "other" ? Effect.zipRight(forget, Effect.flatMap(liveDigests, liveKeys.keepOnly)) : Effect.void)),
            Stream.as(undefined)
          )
        })
      )

    const oauthClient: AuthShape["oauthClient"] = (wanted, scopes, origin) =>
      Effect.gen(function* () {
        const same = yield* clientRows(sql`SELECT * FROM clients WHERE via = 'oauth' AND oauth_client_id = ${origin.client_id} AND revoked_at IS NULL ORDER BY created_at`)
        if (same[0] !== undefined) return toRecord(same[0])
        const base = oauthNameOf(wanted)
        for (let n = 1; n <= 100; n++) {
          const name = n === 1 ? base : `${base.slice(0, 28)}-${n}`
          if (Option.isSome(yield* find(name))) continue
          // A key is made and thrown away: the row needs a digest, and nobody holds this key.
          const { digest } = issue(name)
          const row: ClientRow = {
            name, key_digest: digest, scopes: normalizeScopes(scopes).join(","), created_at: yield* nowIso, last_used_at: null, revoked_at: null,
            via: "oauth", oauth_client_id: origin.client_id, oauth_host: origin.host
          }
          const columns = yield* orDie(encodeClient(row))
          yield* orDie(sql`INSERT INTO clients ${sql.insert({ ...columns })}`)
          yield* changed
          return toRecord(row)
        }
        return yield* new ClientError({ message: `no free client name for '${base}'` })
      })

    const listClients = clientRows(sql`SELECT * FROM clients ORDER BY name`).pipe(Effect.map((rows) => rows.map(toRecord)))

    return { authenticate, addClient, listClients, revoke, rotate, oauthClient, adminKey: Redacted.make(admin), changes }
  })
)
