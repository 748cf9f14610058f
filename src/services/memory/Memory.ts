/**
 * The teach tools' memory policy: which namespace an agent id writes to and searches, which tags are
 * kept. This file is the interface and the "memory off" layer; the live one sits over `MemoryStore`.
 */
import { Context, Effect, Layer } from "effect"
import type { BridgeError } from "../../domain/errors.ts"
import { MemoryDisabled } from "../../domain/errors.ts"
import type { MemoryAdded, MemoryResults } from "../../domain/memory.ts"
import type { Caller } from "../../request/Caller.ts"

export interface MemoryShape {
  readonly add: (agent: string, text: string, tags: ReadonlyArray<string>) => Effect.Effect<MemoryAdded, BridgeError, Caller>
  readonly search: (agent: string, query: string, limit: number) => Effect.Effect<MemoryResults, BridgeError, Caller>
}

export class Memory extends Context.Tag("agent-bridge/Memory")<Memory, MemoryShape>() {}

/** `memory.enabled: false`: every call is `bridge.memory_disabled`. */
export const MemoryOff = Layer.succeed(Memory, (() => {
  const no = () => Effect.fail(new MemoryDisabled({ message: "this box runs no memory" }))
  return { add: no, search: no }
})())
