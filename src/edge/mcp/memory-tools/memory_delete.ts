import { Effect, Schema } from "effect"
import { MemoryDeleted } from "../../../domain/memory.ts"
import { DirectMemory } from "../../../services/memory/DirectMemory.ts"
import { defineTool } from "../ToolDef.ts"
import { memoryRefusal } from "./fields.ts"

export default defineTool({
  name: "memory_delete",
  title: "Delete a memory note",
  description:
    "Delete one note you wrote (in your private memory or the shared one). A note of another client's cannot be deleted and is reported like one that does not exist.",
  input: Schema.Struct({ id: Schema.String.annotations({ description: "The note id (mem_…) from memory_add, memory_search or memory_list." }) }),
  output: MemoryDeleted,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  invalidInput: memoryRefusal,
  handler: ({ id }) => Effect.flatMap(DirectMemory, (m) => m.remove(id))
})
