/**
 * `InboxStoreTest`: the real inbox table over a fresh in-memory database (migrated like the real
 * one) with its change feed; the pending rules live in SQL, which a fake would only imitate. It
 * records rows in `inbox` and provides `InboxChanges` and the `SqlClient` beside `InboxStore`.
 *
 * The store names its database in its `store_unavailable` sentences from `AppConfig`; the double
 * brings the defaults' config (no file, no environment) unless a test gives its own.
 */
import type { SqlClient } from "@effect/sql"
import { Either, Layer } from "effect"
import * as os from "node:os"
import { AppConfig, AppConfigLive } from "../../config/AppConfig.ts"
import { loadConfig } from "../../config/load.ts"
import { DbMemory } from "../../storage/Db.ts"
import { InboxChangesLive } from "./InboxChanges.ts"
import { InboxStoreLive } from "./InboxStore.ts"

const defaultsConfig = (): Layer.Layer<AppConfig> => AppConfigLive(Either.getOrThrow(loadConfig({ env: {}, cwd: os.tmpdir() })))

/** The same over the database `db` gives (a test's `TestDb`, to run on either dialect). */
export const InboxStoreTestOn = <E>(db: Layer.Layer<SqlClient.SqlClient, E>, config: Layer.Layer<AppConfig> = defaultsConfig()) =>
  InboxStoreLive.pipe(Layer.provideMerge(InboxChangesLive), Layer.provideMerge(db), Layer.provide(config))

export const InboxStoreTest = InboxStoreTestOn(DbMemory)
