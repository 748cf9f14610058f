/**
 * `MemoryTest`: the real teach-side memory (`MemoryOn`) over `MemoryStoreTest`, whatever the
 * configuration says; it records notes in that in-memory store, which it also provides. Needs a
 * `HermesClient` (for the agent names) and a `Redactor`.
 */
import { Layer } from "effect"
import { MemoryOn } from "./MemoryLive.ts"
import { MemoryStoreTest } from "./MemoryStoreTest.ts"

export const MemoryTest = MemoryOn.pipe(Layer.provideMerge(MemoryStoreTest))
