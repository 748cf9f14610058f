/** The direct memory server's tools: own private namespace and shared, delete only one's own notes. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Schema } from "effect"
import * as os from "node:os"
import { AppConfigTest } from "../../src/config/AppConfig.ts"
import { memoryTools } from "../../src/edge/mcp/memory-tools/index.ts"
import memoryAdd from "../../src/edge/mcp/memory-tools/memory_add.ts"
import memoryDelete from "../../src/edge/mcp/memory-tools/memory_delete.ts"
import memoryList from "../../src/edge/mcp/memory-tools/memory_list.ts"
import memorySearch from "../../src/edge/mcp/memory-tools/memory_search.ts"
import type { ToolDef } from "../../src/edge/mcp/ToolDef.ts"
import { DirectMemoryLive } from "../../src/services/memory/DirectMemory.ts"
import { DirectMemoryTestOn } from "../../src/services/memory/DirectMemoryTest.ts"
import { MemoryStoreTestOn } from "../../src/services/memory/MemoryStoreTest.ts"
import { MemoryStore } from "../../src/services/memory/MemoryStore.ts"
import { as, asAdmin, testRedactor, testDb } from "./support.ts"

const layer = DirectMemoryTestOn(testDb).pipe(Layer.provide(testRedactor))

/** Decodes like the edge (excess properties refused; a failure mapped by the tool) and runs the handler. */
const call = <I, O>(tool: ToolDef<I, O, any>, args: unknown) =>
  Effect.gen(function* () {
    const decoded = Schema.decodeUnknownEither(tool.input, { onExcessProperty: "error" })(args)
    if (Either.isLeft(decoded)) return yield* Effect.fail(tool.invalidInput?.("", decoded.left.message) ?? decoded.left)
    return yield* tool.handler(decoded.right)
  })
const mem = ["agents", "memory"] as const

describe("direct memory tools", () => {
  it("the server has exactly memory_add, memory_search, memory_list, memory_delete", () => {
    expect(memoryTools.map((t) => t.name)).toEqual(["memory_add", "memory_search", "memory_list", "memory_delete"])
  })

  it.effect("memory_add writes to private:<client> by default and to shared on request", () =>
    Effect.gen(function* () {
      const a = yield* call(memoryAdd, { text: "mine" }).pipe(as("alice", mem))
      const b = yield* call(memoryAdd, { text: "ours", namespace: "shared" }).pipe(as("alice", mem))
      expect(a.namespace).toBe("private:alice")
      expect(b.namespace).toBe("shared")
      const m = yield* MemoryStore
      const note = yield* m.get(a.id)
      expect(note._tag === "Some" && note.value.tags).toEqual(["source:bridge:alice"])
    }).pipe(Effect.provide(layer)))

  it.effect("no other namespace can be named", () =>
    Effect.gen(function* () {
      for (const namespace of ["private:bob", "private:hermes", "all"]) {
        const e = yield* Effect.flip(call(memoryAdd, { text: "x", namespace }).pipe(as("alice", mem)))
        expect(e._tag, namespace).toBe("MemoryInvalid")
      }
    }).pipe(Effect.provide(layer)))

  it.effect("reserved tags are dropped here too", () =>
    Effect.gen(function* () {
      const a = yield* call(memoryAdd, { text: "x", tags: ["Agent:hermes", "keep"] }).pipe(as("alice", mem))
      const note = yield* Effect.flatMap(MemoryStore, (m) => m.get(a.id))
      expect(note._tag === "Some" && note.value.tags).toEqual(["keep", "source:bridge:alice"])
    }).pipe(Effect.provide(layer)))

  it.effect("memory_search and memory_list read own private and shared, never another client's or Hermes's", () =>
    Effect.gen(function* () {
      const m = yield* MemoryStore
      yield* m.add({ namespace: "private:hermes", text: "topic hermes", tags: [], client: "alice" })
      yield* m.add({ namespace: "private:bob", text: "topic bob", tags: [], client: "bob" })
      yield* call(memoryAdd, { text: "topic alice" }).pipe(as("alice", mem))
      yield* call(memoryAdd, { text: "topic shared", namespace: "shared" }).pipe(as("bob", mem))
      const texts = (r: { readonly results: ReadonlyArray<{ readonly text: string }> }) => r.results.map((h) => h.text).sort()
      expect(texts(yield* call(memorySearch, { query: "topic" }).pipe(as("alice", mem)))).toEqual(["topic alice", "topic shared"])
      expect(texts(yield* call(memorySearch, { query: "topic", namespace: "private" }).pipe(as("alice", mem)))).toEqual(["topic alice"])
      expect(texts(yield* call(memorySearch, { query: "topic", namespace: "shared" }).pipe(as("alice", mem)))).toEqual(["topic shared"])
      const list = yield* call(memoryList, {}).pipe(as("alice", mem))
      expect(list.notes.map((n) => n.text)).toEqual(["topic shared", "topic alice"])
      expect(list.next_offset).toBeNull()
    }).pipe(Effect.provide(layer)))

  it.effect("memory_list pages newest first with next_offset", () =>
    Effect.gen(function* () {
      for (let i = 0; i < 5; i++) yield* call(memoryAdd, { text: `n${i}` }).pipe(as("alice", mem))
      const p1 = yield* call(memoryList, { limit: 2 }).pipe(as("alice", mem))
      expect(p1.notes.map((n) => n.text)).toEqual(["n4", "n3"])
      expect(p1.next_offset).toBe(2)
      const p3 = yield* call(memoryList, { limit: 2, offset: 4 }).pipe(as("alice", mem))
      expect(p3.notes.map((n) => n.text)).toEqual(["n0"])
      expect(p3.next_offset).toBeNull()
      for (const args of [{ limit: 0 }, { limit: 51 }, { offset: -1 }]) {
        expect((yield* Effect.flip(call(memoryList, args).pipe(as("alice", mem))))._tag).toBe("MemoryInvalid")
      }
    }).pipe(Effect.provide(layer)))

  it.effect("results and listings pass through the Redactor", () =>
    Effect.gen(function* () {
      yield* call(memoryAdd, { text: "use Authorization: Bearer zzzzyyyyxxxx1234 here" }).pipe(as("alice", mem))
      const s = yield* call(memorySearch, { query: "authorization" }).pipe(as("alice", mem))
      const l = yield* call(memoryList, {}).pipe(as("alice", mem))
      expect(s.results[0]!.text).not.toContain("zzzzyyyyxxxx1234")
      expect(l.notes[0]!.text).not.toContain("zzzzyyyyxxxx1234")
    }).pipe(Effect.provide(layer)))

  it.effect("memory_delete removes one's own note, private or shared", () =>
    Effect.gen(function* () {
      const a = yield* call(memoryAdd, { text: "private one" }).pipe(as("alice", mem))
      const b = yield* call(memoryAdd, { text: "shared one", namespace: "shared" }).pipe(as("alice", mem))
      expect(yield* call(memoryDelete, { id: a.id }).pipe(as("alice", mem))).toEqual({ status: "ok", id: a.id, deleted: true })
      expect((yield* call(memoryDelete, { id: b.id }).pipe(as("alice", mem))).deleted).toBe(true)
      expect((yield* call(memoryList, {}).pipe(as("alice", mem))).notes).toEqual([])
    }).pipe(Effect.provide(layer)))

  it.effect("another client's note, a Hermes note and an unknown id are refused the same way", () =>
    Effect.gen(function* () {
      const bobs = yield* call(memoryAdd, { text: "bob's shared note", namespace: "shared" }).pipe(as("bob", mem))
      const m = yield* MemoryStore
      // alice wrote this one, but into Hermes's private memory (agent_memory_add): not hers to delete here.
      const inHermes = yield* m.add({ namespace: "private:hermes", text: "x", tags: [], client: "alice" })
      const messages: Array<string> = []
      for (const id of [bobs.id, inHermes.id, "mem_000000000000000000000000"]) {
        const e = yield* Effect.flip(call(memoryDelete, { id }).pipe(as("alice", mem)))
        expect(e._tag).toBe("MemoryInvalid")
        messages.push(e.message.replace(id, "<id>"))
      }
      expect(new Set(messages).size).toBe(1)
      expect((yield* m.get(bobs.id))._tag).toBe("Some")
      expect((yield* m.get(inHermes.id))._tag).toBe("Some")
    }).pipe(Effect.provide(layer)))

  it.effect("a key without the memory scope is auth.forbidden; the admin is admitted", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(call(memoryAdd, { text: "x" }).pipe(as("alice", ["agents"])))
      expect(e._tag).toBe("AuthForbidden")
      const a = yield* call(memoryAdd, { text: "x" }).pipe(asAdmin)
      expect(a.namespace).toBe("private:admin")
    }).pipe(Effect.provide(layer)))

  it.effect("text and query limits are those of the teach tools", () =>
    Effect.gen(function* () {
      expect((yield* Effect.flip(call(memoryAdd, { text: "" }).pipe(as("alice", mem))))._tag).toBe("MemoryInvalid")
      expect((yield* Effect.flip(call(memoryAdd, { text: "x".repeat(16385) }).pipe(as("alice", mem))))._tag).toBe("MemoryInvalid")
      expect((yield* Effect.flip(call(memorySearch, { query: " " }).pipe(as("alice", mem))))._tag).toBe("MemoryInvalid")
      expect((yield* Effect.flip(call(memorySearch, { query: "x", limit: 51 }).pipe(as("alice", mem))))._tag).toBe("MemoryInvalid")
    }).pipe(Effect.provide(layer)))

  it.effect("memory off: every tool is bridge.memory_disabled", () =>
    Effect.gen(function* () {
      for (const [tool, args] of [[memoryAdd, { text: "x" }], [memorySearch, { query: "x" }], [memoryList, {}], [memoryDelete, { id: "x" }]] as const) {
        const e = yield* Effect.flip(call(tool as ToolDef, args).pipe(as("alice", mem)))
        expect(e._tag, tool.name).toBe("MemoryDisabled")
      }
    }).pipe(
      Effect.provide(
        DirectMemoryLive.pipe(
          Layer.provide(AppConfigTest({ env: { AGENT_BRIDGE_MEMORY_ENABLED: "false" }, cwd: os.tmpdir() })),
          Layer.provide(MemoryStoreTestOn(testDb)),
          Layer.provide(testRedactor)
        )
      )
    ))
})
