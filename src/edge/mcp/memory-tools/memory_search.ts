import { Effect, Schema } from "effect"
import { MemoryResults } from "../../../domain/memory.ts"
import { DirectMemory } from "../../../services/memory/DirectMemory.ts"
import { defineTool } from "../ToolDef.ts"
import { Limit, memoryRefusal, Scope } from "./fields.ts"
import { MEMORY_LIMITS, kib } from "../../../domain/limits.ts"

export default defineTool({
  name: "memory_search",
  title: "Search memory notes",
  description:
    "Search your private notes and the shared notes, best matches first. Words match any of them; quote a phrase; end a word with * for a prefix.",
  input: Schema.Struct({
    query: Schema.String.annotations({ description: `Words to look for (at most ${kib(MEMORY_LIMITS.textBytesMax)}).` }),
    limit: Schema.optional(Limit(MEMORY_LIMITS.limitDefault)),
    namespace: Schema.optional(Scope)
  }),
  output: MemoryResults,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  invalidInput: memoryRefusal,
  handler: ({ query, limit, namespace }) => Effect.flatMap(DirectMemory, (m) => m.search(query, limit ?? MEMORY_LIMITS.limitDefault, namespace ?? "all"))
})
