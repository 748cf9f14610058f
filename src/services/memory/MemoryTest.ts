/**
 * `MemoryTest`: the real teach-side memory (`MemoryOn`) over `MemoryStoreTest`, whatever the
 * configuration says; it records notes in that in-memory store, which it also provides. Needs a
 * `HermesClient` (for the agent names) and a `Redactor`.
 */
import type { SqlClient } from "@effect/sql"
import { Layer } from "effect"
import { MemoryOn } from "./MemoryLive.ts"
import { MemoryStoreTest, MemoryStoreTestOn } from "./MemoryStoreTest.ts"

export const MemoryTest = MemoryOn.pipe(Layer.provideMerge(MemoryStoreTest))

/** The same over the database `db` gives (a test's `TestDb`, to run on either dialect). */
export const MemoryTestOn = <E>(db: Layer.Layer<SqlClient.SqlClient, E>) => MemoryOn.pipe(Layer.provideMerge(MemoryStoreTestOn(db)))
