/**
 * `MemoryStoreTest`: the real note store over a fresh in-memory database (FTS5 and all, migrated
 * like the real one): a fake could not rank or match like SQLite's full-text index. It records the
 * notes in `memory_notes`, and provides the `SqlClient` for a test to look at them.
 */
import type { SqlClient } from "@effect/sql"
import { Layer } from "effect"
import { DbMemory } from "../../storage/Db.ts"
import { MemoryStoreLive } from "./MemoryStoreLive.ts"

/** The real store over the database `db` gives (a test's `TestDb`, to run on either dialect). */
export const MemoryStoreTestOn = <E>(db: Layer.Layer<SqlClient.SqlClient, E>) => MemoryStoreLive.pipe(Layer.provideMerge(db))

export const MemoryStoreTest = MemoryStoreTestOn(DbMemory)
