/**
 * `DirectMemoryTest`: the real direct memory (`DirectMemoryOn`) over `MemoryStoreTest`, whatever the
 * configuration says; it records notes in that in-memory store, which it also provides. Needs a
 * `Redactor`.
 */
import type { SqlClient } from "@effect/sql"
import { Layer } from "effect"
import { DirectMemoryOn } from "./DirectMemory.ts"
import { MemoryStoreTest, MemoryStoreTestOn } from "./MemoryStoreTest.ts"

export const DirectMemoryTest = DirectMemoryOn.pipe(Layer.provideMerge(MemoryStoreTest))

/** The same over the database `db` gives (a test's `TestDb`, to run on either dialect). */
export const DirectMemoryTestOn = <E>(db: Layer.Layer<SqlClient.SqlClient, E>) => DirectMemoryOn.pipe(Layer.provideMerge(MemoryStoreTestOn(db)))
