/**
 * `Memory` for the teach tools (`agent_memory_add`, `agent_memory_search`) over `MemoryStore`.
 * `hermes` / `hermes/<profile>` write to that agent's private namespace and search it with the
 * shared one; `shared` writes to shared and searches shared with the caller's own private notes.
 */
import { Effect, Layer } from "effect"
import { AppConfig } from "../../config/AppConfig.ts"
import { HermesClient } from "../../hermes/client/HermesClient.ts"
import { Caller } from "../../request/Caller.ts"
import { Memory, MemoryOff } from "./Memory.ts"
import { Redactor } from "../../common/Redactor.ts"
import { MemoryStore } from "./MemoryStore.ts"
import { bridgeHermes } from "../hermes-failures/bridgeHermes.ts"
import { checkLimit, checkQuery, checkText, hitView, storeNote } from "./notes.ts"
import { clientNamespace, hermesNamespace, SHARED_NAMESPACE } from "./policy.ts"

/** Memory on, whatever the configuration says. */
export const MemoryOn = Layer.effect(
  Memory,
  Effect.gen(function* () {
    const store = yield* MemoryStore
    const hermes = bridgeHermes(yield* HermesClient)
    const redactor = yield* Redactor

    /** Where `agent` writes and what it searches; anything but shared and a known profile is unknown. */
    const scope = (agent: string, client: string) =>
      agent === "shared"
        ? Effect.succeed({ write: SHARED_NAMESPACE, read: [SHARED_NAMESPACE, clientNamespace(client)] })
        : Effect.map(hermes.profile(agent), (p) => {
            const own = hermesNamespace(p.name)
            return { write: own, read: [own, SHARED_NAMESPACE] }
          })

    return Memory.of({
      add: (agent, text, tags) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          const { write } = yield* scope(agent, caller.client)
          yield* checkText(text)
          const note = yield* storeNote(store, { namespace: write, text, tags, client: caller.client })
          return { status: "ok" as const, id: note.id, timestamp: note.created_at }
        }),
      search: (agent, query, limit) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          const { read } = yield* scope(agent, caller.client)
          yield* checkQuery(query)
          yield* checkLimit(limit)
          const hits = yield* store.search({ namespaces: read, query, limit })
          return { status: "ok" as const, results: hits.map((h) => hitView(redactor, h)) }
        })
    })
  })
)

/** `memory.enabled: false` → every call is `bridge.memory_disabled`; else `MemoryOn`. */
export const MemoryLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => (config.memory.enabled ? MemoryOn : MemoryOff))
)
