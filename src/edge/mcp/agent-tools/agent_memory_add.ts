import { Effect, Schema } from "effect"
import { MemoryInvalid } from "../../../domain/errors.ts"
import { MemoryAdded } from "../../../domain/memory.ts"
import { Memory } from "../../../services/memory/Memory.ts"
import { defineTool, Fields } from "../ToolDef.ts"
import { MEMORY_LIMITS, kib } from "../../../domain/limits.ts"

export default defineTool({
  name: "agent_memory_add",
  title: "Add to an agent's memory",
  description:
    'Save a note for later runs in an agent\'s private memory ("hermes" or "hermes/<profile>") or in the shared memory ("shared"); returns the note id and timestamp. It does not start a run.',
  input: Schema.Struct({
    agent: Fields.agent.annotations({ description: 'Whose memory: "hermes", "hermes/<profile>" or "shared".' }),
    text: Schema.String.annotations({ description: `The note (at most ${kib(MEMORY_LIMITS.textBytesMax)}).` }),
    tags: Schema.optional(Schema.Array(Schema.String).annotations({ description: "Free-form tags for the note." }))
  }),
  output: MemoryAdded,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  invalidInput: (_field, message) => new MemoryInvalid({ message }),
  handler: ({ agent, text, tags }) => Effect.flatMap(Memory, (m) => m.add(agent, text, tags ?? []))
})
