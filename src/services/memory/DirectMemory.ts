/**
 * The direct memory server (`/mcp/memory/mcp`, keys with scope `memory` and the admin): a client's
 * own notes in `private:<client>` and the box's `shared` notes. A client deletes only notes it wrote;
 * a note it did not write, or that is not in those namespaces, is answered exactly like one that
 * does not exist, so note ids cannot be probed.
 */
import { Context, Effect, Layer, Option } from "effect"
import { AppConfig } from "../../config/AppConfig.ts"
import { AuthForbidden, type BridgeError, MemoryDisabled, MemoryInvalid } from "../../domain/errors.ts"
import type { MemoryDeleted, MemoryList, MemoryResults, MemoryStored } from "../../domain/memory.ts"
import { Caller, type CallerShape } from "../../request/Caller.ts"
import { Redactor } from "../../common/Redactor.ts"
import { MemoryStore } from "./MemoryStore.ts"
import { checkLimit, checkQuery, checkText, hitView, noteView, storeNote } from "./notes.ts"
import { clientNamespace, SHARED_NAMESPACE } from "./policy.ts"

/** `private`: the caller's own namespace; `shared`: the box's; `all`: both. */
export type DirectScope = "private" | "shared" | "all"

type Op<A> = Effect.Effect<A, BridgeError, Caller>

export interface DirectMemoryShape {
  readonly add: (text: string, tags: ReadonlyArray<string>, scope: "private" | "shared") => Op<MemoryStored>
  readonly search: (query: string, limit: number, scope: DirectScope) => Op<MemoryResults>
  readonly list: (scope: DirectScope, limit: number, offset: number) => Op<MemoryList>
  readonly remove: (id: string) => Op<MemoryDeleted>
}

export class DirectMemory extends Context.Tag("agent-bridge/DirectMemory")<DirectMemory, DirectMemoryShape>() {}

/** `memory.enabled: false`: every call is `bridge.memory_disabled`. */
export const DirectMemoryOff = Layer.succeed(DirectMemory, (() => {
  const no = () => Effect.fail(new MemoryDisabled({ message: "this box runs no memory" }))
  return { add: no, search: no, list: no, remove: no }
})())

export const namespacesFor = (client: string, scope: DirectScope): ReadonlyArray<string> =>
  scope === "private" ? [clientNamespace(client)] : scope === "shared" ? [SHARED_NAMESPACE] : [clientNamespace(client), SHARED_NAMESPACE]

/** The edge admits only `memory`-scoped keys and the admin; checked again here, where the data is. */
const memoryCaller: Effect.Effect<CallerShape, AuthForbidden, Caller> = Effect.flatMap(Caller, (caller) =>
  caller.isAdmin || caller.scopes.includes("memory")
    ? Effect.succeed(caller)
    : Effect.fail(new AuthForbidden({ message: "this key has no memory scope" }))
)

/** Direct memory on: the memory tools over `MemoryStore`, whatever the configuration says. */
export const DirectMemoryOn = Layer.effect(
  DirectMemory,
  Effect.gen(function* () {
    const store = yield* MemoryStore
    const redactor = yield* Redactor
    return DirectMemory.of({
      add: (text, tags, scope) =>
        Effect.gen(function* () {
          const caller = yield* memoryCaller
          yield* checkText(text)
          const namespace = scope === "shared" ? SHARED_NAMESPACE : clientNamespace(caller.client)
          const note = yield* storeNote(store, { namespace, text, tags, client: caller.client })
          return { status: "ok" as const, id: note.id, timestamp: note.created_at, namespace }
        }),
      search: (query, limit, scope) =>
        Effect.gen(function* () {
          const caller = yield* memoryCaller
          yield* checkQuery(query)
          yield* checkLimit(limit)
          const hits = yield* store.search({ namespaces: namespacesFor(caller.client, scope), query, limit })
          return { status: "ok" as const, results: hits.map((h) => hitView(redactor, h)) }
        }),
      list: (scope, limit, offset) =>
        Effect.gen(function* () {
          const caller = yield* memoryCaller
          yield* checkLimit(limit)
          if (!Number.isInteger(offset) || offset < 0) {
            return yield* new MemoryInvalid({ message: "offset must be a whole number ≥ 0" })
          }
          // One extra row says whether another page follows.
          const notes = yield* store.list({ namespaces: namespacesFor(caller.client, scope), limit: limit + 1, offset })
          return {
            status: "ok" as const,
            notes: notes.slice(0, limit).map((n) => noteView(redactor, n)),
            next_offset: notes.length > limit ? offset + limit : null
          }
        }),
      remove: (id) =>
        Effect.gen(function* () {
          const caller = yield* memoryCaller
          const mine = namespacesFor(caller.client, "all")
          const note = yield* store.get(id)
          const owned = Option.filter(note, (n) => n.client === caller.client && mine.includes(n.namespace))
          if (Option.isNone(owned) || !(yield* store.remove(id))) {
            return yield* new MemoryInvalid({ message: `no note '${id.slice(0, 64)}' of yours to delete` })
          }
          return { status: "ok" as const, id, deleted: true as const }
        })
    })
  })
)

/** `memory.enabled: false` → every call is `bridge.memory_disabled`; else `DirectMemoryOn`. */
export const DirectMemoryLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => (config.memory.enabled ? DirectMemoryOn : DirectMemoryOff))
)
