/**
 * "Another process wrote the database", on either dialect: a statement over a connection of its own,
 * opened and closed for it, as `agent-bridge client revoke` or another daemon writes. SQLite: a
 * second better-sqlite3 connection to the data dir's file (its commit moves the daemon's
 * `data_version`). PostgreSQL (the pg project): a node-postgres client on the data dir's database
 * (`pgDatabaseFor`; its commit fires the change feed's triggers). Statements use `?` placeholders,
 * numbered for PostgreSQL here.
 */
import Database from "better-sqlite3"
import { Effect, Redacted } from "effect"
import * as path from "node:path"
import pg from "pg"
import type { ResolvedConfig } from "../../src/config/load.ts"
import { DB_FILE } from "../../src/storage/Db.ts"
import { pgDatabaseFor, TEST_DIALECT } from "./testDb.ts"

/** The config with its data dir's PostgreSQL database as `storage.url` in the pg project (as `startDaemon` does). */
export const withTestStorage = (config: ResolvedConfig): Effect.Effect<ResolvedConfig> =>
  TEST_DIALECT === "pg" && config.storage.url === undefined
    ? Effect.map(Effect.promise(() => pgDatabaseFor(config.dataDir)), (url) => ({ ...config, storage: { ...config.storage, url: Redacted.make(url) } }))
    : Effect.succeed(config)

/** Runs `statement` with `params` over a connection of its own to the config's database. */
export const fromAnotherConnection = (config: ResolvedConfig, statement: string, ...params: Array<unknown>): Effect.Effect<void> =>
  Effect.flatMap(withTestStorage(config), (c) => {
    const url = c.storage.url
    if (url === undefined) {
      return Effect.sync(() => {
        const db = new Database(path.join(c.dataDir, DB_FILE))
        try {
          db.prepare(statement).run(...params)
        } finally {
          db.close()
        }
      })
    }
    let n = 0
    const text = statement.replace(/\?/g, () => `$${++n}`)
    return Effect.promise(async () => {
      const client = new pg.Client({ connectionString: Redacted.value(url) })
      await client.connect()
      try {
        await client.query(text, params)
      } finally {
        await client.end()
      }
    })
  })
