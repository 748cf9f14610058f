import { Effect, Schema } from "effect"
import { MemoryList } from "../../../domain/memory.ts"
import { DirectMemory } from "../../../services/memory/DirectMemory.ts"
import { defineTool } from "../ToolDef.ts"
import { Limit, memoryRefusal, Scope } from "./fields.ts"
import { MEMORY_LIMITS } from "../../../domain/limits.ts"

export default defineTool({
  name: "memory_list",
  title: "List memory notes",
  description:
    "List your private notes and the shared notes, newest first. Call again with offset=next_offset for the next page (next_offset is null after the last).",
  input: Schema.Struct({
    namespace: Schema.optional(Scope),
    limit: Schema.optional(Limit(MEMORY_LIMITS.listDefault)),
    offset: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)).annotations({ description: "Notes to skip (default 0)." }))
  }),
  output: MemoryList,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  invalidInput: memoryRefusal,
  handler: ({ namespace, limit, offset }) => Effect.flatMap(DirectMemory, (m) => m.list(namespace ?? "all", limit ?? MEMORY_LIMITS.listDefault, offset ?? 0))
})
