/**
 * `InboxStoreTest`: the real inbox table over a fresh in-memory database (migrated like the real
 * one) with its change feed; the pending rules live in SQL, which a fake would only imitate. It
 * records rows in `inbox` and provides `InboxChanges` and the `SqlClient` beside `InboxStore`.
 */
import { Layer } from "effect"
import { DbMemory } from "../../storage/Db.ts"
import { InboxChangesLive } from "./InboxChanges.ts"
import { InboxStoreLive } from "./InboxStore.ts"

export const InboxStoreTest = InboxStoreLive.pipe(Layer.provideMerge(InboxChangesLive), Layer.provideMerge(DbMemory))
