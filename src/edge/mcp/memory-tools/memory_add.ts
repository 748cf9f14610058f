import { Effect, Schema } from "effect"
import { MemoryStored } from "../../../domain/memory.ts"
import { DirectMemory } from "../../../services/memory/DirectMemory.ts"
import { defineTool } from "../ToolDef.ts"
import { memoryRefusal } from "./fields.ts"
import { MEMORY_LIMITS, kib } from "../../../domain/limits.ts"

export default defineTool({
  name: "memory_add",
  title: "Add a memory note",
  description:
    'Remember a note in your own private memory (default) or, with namespace "shared", in the box\'s shared memory that Hermes and other clients read. Returns the note id, timestamp and namespace.',
  input: Schema.Struct({
    text: Schema.String.annotations({ description: `The note (at most ${kib(MEMORY_LIMITS.textBytesMax)}).` }),
    tags: Schema.optional(Schema.Array(Schema.String).annotations({ description: "Free-form tags for the note." })),
    namespace: Schema.optional(
      Schema.Literal("private", "shared").annotations({ description: '"private" (default): only you read it; "shared": everyone on the box does.' })
    )
  }),
  output: MemoryStored,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  invalidInput: memoryRefusal,
  handler: ({ text, tags, namespace }) => Effect.flatMap(DirectMemory, (m) => m.add(text, tags ?? [], namespace ?? "private"))
})
