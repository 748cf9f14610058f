/**
 * `DirectMemoryTest`: the real direct memory (`DirectMemoryOn`) over `MemoryStoreTest`, whatever the
 * configuration says; it records notes in that in-memory store, which it also provides. Needs a
 * `Redactor`.
 */
import { Layer } from "effect"
import { DirectMemoryOn } from "./DirectMemory.ts"
import { MemoryStoreTest } from "./MemoryStoreTest.ts"

export const DirectMemoryTest = DirectMemoryOn.pipe(Layer.provideMerge(MemoryStoreTest))
