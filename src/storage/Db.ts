/**
 * The bridge's database, migrated (./migrations): the SQLite file (WAL) in the data directory, as
 * always, or the PostgreSQL database `storage.url` names (issue 24). The data dir is created 0700
 * and the database file 0600 before SQLite opens it: the ledger holds raw output.
 *
 * On PostgreSQL the pool holds at most `storage.pool_max` connections, and each connection starts
 * with `statement_timeout` set to `storage.statement_timeout_ms`, so the server cancels a statement
 * that runs longer. A server that cannot be reached at start is one `StorageUnreachable`, naming
 * the server as host:port/db (never the URL, which may carry a password).
 */
import { SqlClient } from "@effect/sql"
import type { PgClient } from "@effect/sql-pg"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Data, Duration, Effect, Layer, Redacted } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { StorageSection } from "../config/schema.ts"
import { pgServerName } from "../config/storageUrl.ts"
import { migrate } from "./migrations/migrate.ts"
import { newOrigin, withOrigin } from "./pg/origin.ts"

export const DB_FILE = "bridge.db"

/** The data directory could not be made ready (a read-only or full disk, a file in its place). */
export class DataDirError extends Data.TaggedError("DataDirError")<{ readonly dataDir: string; readonly cause: unknown }> {
  override get message() {
    const reason = this.cause instanceof Error ? this.cause.message : String(this.cause)
    return `cannot prepare the data directory ${this.dataDir}: ${reason}`
  }
}

/** The PostgreSQL server of `storage.url` did not answer at start (down, refused, wrong credentials). */
export class StorageUnreachable extends Data.TaggedError("StorageUnreachable")<{
  /** `host:port/db`, never the URL. */
  readonly server: string
  /** What the driver said, with any password in it masked. */
  readonly reason: string
}> {
  override get message() {
    return `cannot reach PostgreSQL at ${this.server}: ${this.reason}; check that the server runs and that storage.url names it`
  }
}

/**
 * Creates the data dir (0700) and an empty database file (0600) if they are missing; tightens
 * modes. The data dir keeps `x` for group and others where it has it (0711): a data dir that holds
 * the drop-in skills folder is passable for a Hermes of another user (`dropinAccess.ts`), never
 * readable or writable by anyone but the bridge.
 */
export const prepareDataDir = (dataDir: string) =>
  Effect.try({
    try: () => {
      fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 })
      fs.chmodSync(dataDir, 0o700 | (fs.statSync(dataDir).mode & 0o011))
      const file = path.join(dataDir, DB_FILE)
      if (!fs.existsSync(file)) fs.closeSync(fs.openSync(file, "a", 0o600))
      fs.chmodSync(file, 0o600)
      return file
    },
    catch: (cause) => new DataDirError({ dataDir, cause })
  })

/** Applies the migrations once the client is up (under an advisory lock on PostgreSQL). */
const MigratorLive = Layer.effectDiscard(migrate)

/** SqlClient over `<dataDir>/bridge.db`, migrated. */
export const DbLive = (dataDir: string) =>
  MigratorLive.pipe(
    Layer.provideMerge(
      Layer.unwrapEffect(
        prepareDataDir(dataDir).pipe(Effect.map((filename) => SqliteClient.layer({ filename })))
      )
    )
  )

/** An in-memory database with the same migrations (tests). */
export const DbMemory = MigratorLive.pipe(Layer.provideMerge(SqliteClient.layer({ filename: ":memory:" })))

/**
 * The URL node-postgres opens: the operator's, with `statement_timeout` (a startup parameter of each
 * connection, in milliseconds) set to the configured one, replacing any the URL had.
 */
export const pgConnectionUrl = (url: string, statementTimeoutMs: number): string => {
  const parsed = new URL(url)
  parsed.searchParams.set("statement_timeout", String(statementTimeoutMs))
  return parsed.toString()
}

/** The texts a URL's password may appear as in a driver's message. */
const passwordTexts = (url: string): ReadonlyArray<string> => {
  try {
    const raw = new URL(url).password
    return raw === "" ? [] : [...new Set([raw, decodeURIComponent(raw)])].sort((a, b) => b.length - a.length)
  } catch {
    return []
  }
}

/** What went wrong beneath the driver's "PgClient: Failed to connect" (node gives an AggregateError for several addresses). */
export const unreachableReason = (error: unknown, url: string): string => {
  const texts: Array<string> = []
  for (let at = error, depth = 0; depth < 6 && typeof at === "object" && at !== null; depth++) {
    const e = at as { message?: unknown; errors?: unknown; cause?: unknown }
    const inner = Array.isArray(e.errors) ? (e.errors as Array<{ message?: unknown }>).map((x) => String(x?.message ?? x)) : []
    const own = typeof e.message === "string" ? e.message : ""
    texts.push(...(inner.length > 0 ? inner : [own]))
    at = e.cause
  }
  const said = texts.filter((t, i, all) => t !== "" && !t.startsWith("PgClient:") && all.indexOf(t) === i).join(": ") || "no answer"
  return passwordTexts(url).reduce((t, p) => t.split(p).join("***"), said)
}

/** SqlClient over the PostgreSQL database of `storage.url`, pooled, migrated. */
export const DbPostgres = (storage: StorageSection & { readonly url: Redacted.Redacted<string> }) => {
  const url = Redacted.value(storage.url)
  // node-postgres and @effect/sql-pg are loaded here, not at start: a daemon on SQLite never needs them.
  const pool: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, unknown> = Layer.unwrapEffect(
    Effect.promise(() => import("./pg/pgLazy.ts")).pipe(
      Effect.map((m) =>
        m.pgClientLayer({
          // Each session names this pool as its origin, so the change feed hears its own writes as its own.
          url: Redacted.make(withOrigin(pgConnectionUrl(url, storage.statement_timeout_ms), newOrigin())),
          maxConnections: storage.pool_max,
          connectTimeout: Duration.seconds(10),
          applicationName: "agent-bridge"
        })
      )
    )
  )
  const client = pool.pipe(Layer.mapError((error) => new StorageUnreachable({ server: pgServerName(url), reason: unreachableReason(error, url) })))
  return MigratorLive.pipe(Layer.provideMerge(client))
}

/** The database for people (health, fault sentences): the SQLite file, or PostgreSQL's `host:port/db` (never the URL). */
export const databasePlace = (config: { readonly dataDir: string; readonly storage: StorageSection }): string =>
  config.storage.url === undefined ? path.join(config.dataDir, DB_FILE) : pgServerName(Redacted.value(config.storage.url))

/** The configured store: PostgreSQL when `storage.url` is set, else the SQLite file in the data dir. */
export const DbFor = (config: {
  readonly dataDir: string
  readonly storage: StorageSection
}): Layer.Layer<SqlClient.SqlClient, Layer.Layer.Error<ReturnType<typeof DbLive>> | Layer.Layer.Error<ReturnType<typeof DbPostgres>>> => {
  const { url } = config.storage
  return url === undefined ? DbLive(config.dataDir) : DbPostgres({ ...config.storage, url })
}

/**
 * The database the daemon's and the CLI's stores open: `DbFor`'s choice (every store has its
 * PostgreSQL driver). Kept as its own export: the daemon, the CLI and doctor name it.
 */
export const DbForStores = DbFor
