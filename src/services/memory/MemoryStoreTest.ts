/**
 * `MemoryStoreTest`: the real note store over a fresh in-memory database (FTS5 and all, migrated
 * like the real one): a fake could not rank or match like SQLite's full-text index. It records the
 * notes in `memory_notes`, and provides the `SqlClient` for a test to look at them.
 */
import { Layer } from "effect"
import { DbMemory } from "../../storage/Db.ts"
import { MemoryStoreLive } from "./MemoryStoreLive.ts"

export const MemoryStoreTest = MemoryStoreLive.pipe(Layer.provideMerge(DbMemory))
