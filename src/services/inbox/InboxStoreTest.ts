/**
 * `InboxStoreTest`: the real inbox table over a fresh in-memory database (migrated like the real
 * one) with its change feed; the pending rules live in SQL, which a fake would only imitate. It
 * records rows in `inbox` and provides `InboxChanges` and the `SqlClient` beside `InboxStore`.
 */
import type { SqlClient } from "@effect/sql"
import { Layer } from "effect"
import { DbMemory } from "../../storage/Db.ts"
import { InboxChangesLive } from "./InboxChanges.ts"
import { InboxStoreLive } from "./InboxStore.ts"

/** The same over the database `db` gives (a test's `TestDb`, to run on either dialect). */
export const InboxStoreTestOn = <E>(db: Layer.Layer<SqlClient.SqlClient, E>) =>
  InboxStoreLive.pipe(Layer.provideMerge(InboxChangesLive), Layer.provideMerge(db))

export const InboxStoreTest = InboxStoreTestOn(DbMemory)
