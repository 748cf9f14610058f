/**
 * `agent_memory_add` / `agent_memory_search` through the `Memory` service: namespaces picked by the
 * bridge, search scopes, the source tag, reserved tags, limits, and each error code of the area.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Schema } from "effect"
import * as os from "node:os"
import { AppConfigTest } from "../../src/config/AppConfig.ts"
import { MemoryFailed } from "../../src/domain/errors.ts"
import agentMemoryAdd from "../../src/edge/mcp/agent-tools/agent_memory_add.ts"
import agentMemorySearch from "../../src/edge/mcp/agent-tools/agent_memory_search.ts"
import { Memory } from "../../src/services/memory/Memory.ts"
import { MemoryStore, type MemoryStoreShape } from "../../src/services/memory/MemoryStore.ts"
import { MemoryLive, MemoryOn } from "../../src/services/memory/MemoryLive.ts"
import { MemoryTestOn } from "../../src/services/memory/MemoryTest.ts"
import { MemoryStoreTestOn } from "../../src/services/memory/MemoryStoreTest.ts"
import { as, simpleHermes, testRedactor, testDb } from "./support.ts"

const layer = MemoryTestOn(testDb).pipe(Layer.provide(simpleHermes), Layer.provide(testRedactor))

const add = (client: string, agent: string, text: string, tags: ReadonlyArray<string> = []) =>
  Effect.flatMap(Memory, (m) => m.add(agent, text, tags)).pipe(as(client))
const search = (client: string, agent: string, query: string, limit = 10) =>
  Effect.flatMap(Memory, (m) => m.search(agent, query, limit)).pipe(as(client))
const stored = (id: string) => Effect.flatMap(MemoryStore, (m) => m.get(id)).pipe(Effect.map(Option.getOrThrow))

describe("namespaces are picked by the bridge", () => {
  it.effect("hermes → private:hermes, hermes/coder → private:hermes__coder, shared → shared", () =>
    Effect.gen(function* () {
      const a = yield* add("alice", "hermes", "one")
      const b = yield* add("alice", "hermes/coder", "two")
      const c = yield* add("alice", "shared", "three")
      expect((yield* stored(a.id)).namespace).toBe("private:hermes")
      expect((yield* stored(b.id)).namespace).toBe("private:hermes__coder")
      expect((yield* stored(c.id)).namespace).toBe("shared")
      expect(a).toEqual({ status: "ok", id: a.id, timestamp: (yield* stored(a.id)).created_at })
    }).pipe(Effect.provide(layer)))

  it.effect("the tool takes no namespace argument, so a caller cannot name one", () =>
    Effect.gen(function* () {
      const decode = Schema.decodeUnknownEither(agentMemoryAdd.input, { onExcessProperty: "error" })
      expect(decode({ agent: "shared", text: "x", namespace: "private:hermes" })._tag).toBe("Left")
      expect(decode({ agent: "shared", text: "x" })._tag).toBe("Right")
    }))

  it.effect("anything but hermes, a configured hermes/<profile> or shared is bridge.unknown_agent", () =>
    Effect.gen(function* () {
      for (const agent of ["pi", "hermes/nope", "HERMES", "Shared", "shared/x", "private:hermes", "", "hermes/"]) {
        const e = yield* Effect.flip(add("alice", agent, "x"))
        expect(e._tag, agent).toBe("UnknownAgent")
        const s = yield* Effect.flip(search("alice", agent, "x"))
        expect(s._tag, agent).toBe("UnknownAgent")
      }
    }).pipe(Effect.provide(layer)))
})

describe("search scopes", () => {
  const seed = Effect.gen(function* () {
    yield* add("alice", "hermes", "fact in hermes private")
    yield* add("alice", "hermes/coder", "fact in coder private")
    yield* add("alice", "shared", "fact in shared")
    const store = yield* MemoryStore
    // Notes a client filed in its own private namespace (through the direct memory server).
    yield* store.add({ namespace: "private:alice", text: "fact in alice private", tags: [], client: "alice" })
    yield* store.add({ namespace: "private:bob", text: "fact in bob private", tags: [], client: "bob" })
  })
  const found = (client: string, agent: string) =>
    Effect.map(search(client, agent, "fact"), (r) => r.results.map((h) => h.text).sort())

  it.effect("hermes reads private:hermes and shared only", () =>
    Effect.gen(function* () {
      yield* seed
      expect(yield* found("alice", "hermes")).toEqual(["fact in hermes private", "fact in shared"])
    }).pipe(Effect.provide(layer)))

  it.effect("hermes/coder reads private:hermes__coder and shared only", () =>
    Effect.gen(function* () {
      yield* seed
      expect(yield* found("alice", "hermes/coder")).toEqual(["fact in coder private", "fact in shared"])
    }).pipe(Effect.provide(layer)))

  it.effect("shared reads shared and the calling client's own private:<client>", () =>
    Effect.gen(function* () {
      yield* seed
      expect(yield* found("alice", "shared")).toEqual(["fact in alice private", "fact in shared"])
      expect(yield* found("bob", "shared")).toEqual(["fact in bob private", "fact in shared"])
      expect(yield* found("carol", "shared")).toEqual(["fact in shared"])
    }).pipe(Effect.provide(layer)))

  it.effect("results carry id, text, tags, namespace, timestamp and score", () =>
    Effect.gen(function* () {
      const a = yield* add("alice", "shared", "the release train leaves on tuesday", ["release"])
      const r = yield* search("alice", "shared", "release")
      expect(r.status).toBe("ok")
      expect(r.results[0]).toMatchObject({ id: a.id, namespace: "shared", timestamp: a.timestamp, tags: ["release", "source:bridge:alice"] })
      expect(Number.isFinite(r.results[0]!.score)).toBe(true)
    }).pipe(Effect.provide(layer)))

  it.effect("results pass through the Redactor", () =>
    Effect.gen(function* () {
      yield* add("alice", "shared", "call the API with Authorization: Bearer abcdefghijklmnop123456", ["OPENAI_API_KEY=sk12345678"])
      const r = yield* search("alice", "shared", "API")
      expect(r.results[0]!.text).not.toContain("abcdefghijklmnop123456")
      expect(r.results[0]!.text).toContain("***REDACTED***")
      expect(r.results[0]!.tags[0]).not.toContain("sk12345678")
    }).pipe(Effect.provide(layer)))
})

describe("tags", () => {
  it.effect("every note carries source:bridge:<client>", () =>
    Effect.gen(function* () {
      const a = yield* add("alice", "hermes", "x")
      const b = yield* add("bob", "shared", "y", ["ops"])
      expect((yield* stored(a.id)).tags).toEqual(["source:bridge:alice"])
      expect((yield* stored(b.id)).tags).toEqual(["ops", "source:bridge:bob"])
      expect((yield* stored(b.id)).client).toBe("bob")
    }).pipe(Effect.provide(layer)))

  it.effect("reserved prefixes are dropped case-insensitively; ordinary tags that resemble them are kept", () =>
    Effect.gen(function* () {
      const a = yield* add("alice", "shared", "x", [
        "agent:hermes", "AGENT:hermes/coder", "Visibility:private", "project:secret", "PROJECT:x",
        "source:bridge:bob", "Source:Bridge:admin", "  agent:padded", "",
        "agents", "source:manual", "my-project:x", "ok"
      ])
      expect((yield* stored(a.id)).tags).toEqual(["agents", "source:manual", "my-project:x", "ok", "source:bridge:alice"])
    }).pipe(Effect.provide(layer)))

  it.effect("a note cannot be planted in another agent's private memory through tags", () =>
    Effect.gen(function* () {
      const planted = yield* add("mallory", "hermes", "planted instruction for coder", [
        "agent:hermes/coder", "visibility:private", "project:coder", "source:bridge:admin"
      ])
      const note = yield* stored(planted.id)
      expect(note.namespace).toBe("private:hermes")
      expect(note.tags).toEqual(["source:bridge:mallory"])
      // The coder profile's search does not see it: it is in hermes's private memory, not coder's or shared.
      expect((yield* search("mallory", "hermes/coder", "planted")).results).toEqual([])
      // Nor does a shared search of another client.
      expect((yield* search("alice", "shared", "planted")).results).toEqual([])
    }).pipe(Effect.provide(layer)))

  it.effect("32 tags of 128 characters pass; 33 tags or 129 characters are bridge.memory_invalid", () =>
    Effect.gen(function* () {
      const tags = Array.from({ length: 32 }, (_, i) => `${i}`.padEnd(128, "t"))
      yield* add("alice", "shared", "x", tags)
      expect((yield* Effect.flip(add("alice", "shared", "x", [...tags, "one more"])))._tag).toBe("MemoryInvalid")
      expect((yield* Effect.flip(add("alice", "shared", "x", ["t".repeat(129)])))._tag).toBe("MemoryInvalid")
      // Dropped reserved tags do not count toward the cap.
      yield* add("alice", "shared", "x", [...tags, "agent:a", "agent:b"])
    }).pipe(Effect.provide(layer)))
})

describe("limits (bridge.memory_invalid)", () => {
  const KiB16 = 16 * 1024
  it.effect("text: 16 KiB of UTF-8 passes; one byte more, empty or blank fails", () =>
    Effect.gen(function* () {
      yield* add("alice", "shared", "x".repeat(KiB16))
      yield* add("alice", "shared", "é".repeat(KiB16 / 2))
      for (const text of ["x".repeat(KiB16 + 1), `${"é".repeat(KiB16 / 2)}x`, "", "  \n\t"]) {
        const e = yield* Effect.flip(add("alice", "shared", text))
        expect(e._tag).toBe("MemoryInvalid")
      }
    }).pipe(Effect.provide(layer)))

  it.effect("query: 16 KiB passes; one byte more, empty or blank fails", () =>
    Effect.gen(function* () {
      yield* search("alice", "shared", "q".repeat(KiB16))
      for (const q of ["q".repeat(KiB16 + 1), "", "   "]) {
        expect((yield* Effect.flip(search("alice", "shared", q)))._tag).toBe("MemoryInvalid")
      }
    }).pipe(Effect.provide(layer)))

  it.effect("limit: 1 and 50 pass and cap the results; 0, 51 and 2.5 fail", () =>
    Effect.gen(function* () {
      for (let i = 0; i < 55; i++) yield* add("alice", "shared", `bulk note ${i}`)
      expect((yield* search("alice", "shared", "bulk", 1)).results).toHaveLength(1)
      expect((yield* search("alice", "shared", "bulk", 50)).results).toHaveLength(50)
      for (const limit of [0, 51, 2.5, -1]) {
        expect((yield* Effect.flip(search("alice", "shared", "bulk", limit)))._tag).toBe("MemoryInvalid")
      }
    }).pipe(Effect.provide(layer)))

  it.effect("the search tool's default limit is 10", () =>
    Effect.gen(function* () {
      for (let i = 0; i < 12; i++) yield* add("alice", "shared", `bulk note ${i}`)
      const input = Schema.decodeUnknownSync(agentMemorySearch.input)({ agent: "shared", query: "bulk" })
      const r = yield* agentMemorySearch.handler(input).pipe(as("alice"))
      expect(r.results).toHaveLength(10)
    }).pipe(Effect.provide(layer)))
})

describe("memory off and a failing memory layer", () => {
  it.effect("memory.enabled: false → bridge.memory_disabled for add and search", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(add("alice", "hermes", "x"))
      expect(e._tag).toBe("MemoryDisabled")
      expect((yield* Effect.flip(search("alice", "shared", "x")))._tag).toBe("MemoryDisabled")
    }).pipe(
      Effect.provide(
        MemoryLive.pipe(
          Layer.provide(AppConfigTest({ env: { AGENT_BRIDGE_MEMORY_ENABLED: "false" }, cwd: os.tmpdir() })),
          Layer.provide(MemoryStoreTestOn(testDb)),
          Layer.provide(simpleHermes),
          Layer.provide(testRedactor)
        )
      )
    ))

  it.effect("memory.enabled: true (the default) → the live memory", () =>
    Effect.gen(function* () {
      expect((yield* add("alice", "hermes", "x")).status).toBe("ok")
    }).pipe(
      Effect.provide(
        MemoryLive.pipe(
          Layer.provide(AppConfigTest({ env: {}, cwd: os.tmpdir() })),
          Layer.provide(MemoryStoreTestOn(testDb)),
          Layer.provide(simpleHermes),
          Layer.provide(testRedactor)
        )
      )
    ))

  const failing: MemoryStoreShape = {
    add: () => Effect.fail(new MemoryFailed({ message: "the memory store could not store the note; see the bridge log" })),
    search: () => Effect.fail(new MemoryFailed({ message: "the memory store could not search; see the bridge log" })),
    list: () => Effect.fail(new MemoryFailed({ message: "x" })),
    get: () => Effect.fail(new MemoryFailed({ message: "x" })),
    remove: () => Effect.fail(new MemoryFailed({ message: "x" }))
  }
  it.effect("a failing memory layer is bridge.memory_failed, after the agent and input checks", () =>
    Effect.gen(function* () {
      expect((yield* Effect.flip(add("alice", "hermes", "x")))._tag).toBe("MemoryFailed")
      expect((yield* Effect.flip(search("alice", "shared", "x")))._tag).toBe("MemoryFailed")
      // Checks that need no store answer first.
      expect((yield* Effect.flip(add("alice", "pi", "x")))._tag).toBe("UnknownAgent")
      expect((yield* Effect.flip(add("alice", "hermes", "")))._tag).toBe("MemoryInvalid")
    }).pipe(
      Effect.provide(MemoryOn.pipe(Layer.provide(Layer.succeed(MemoryStore, failing)), Layer.provide(simpleHermes), Layer.provide(testRedactor)))
    ))
})
