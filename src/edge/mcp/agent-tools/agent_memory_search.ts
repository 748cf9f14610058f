import { Effect, Schema } from "effect"
import { MemoryInvalid } from "../../../domain/errors.ts"
import { MemoryResults } from "../../../domain/memory.ts"
import { Memory } from "../../../services/memory/Memory.ts"
import { defineTool, Fields } from "../ToolDef.ts"
import { MEMORY_LIMITS } from "../../../domain/limits.ts"

export default defineTool({
  name: "agent_memory_search",
  title: "Search an agent's memory",
  description:
    'Search notes, for example before delegating: "hermes" or "hermes/<profile>" reads that agent\'s private notes and the shared ones, "shared" reads the shared notes and your own. Returns the best matches first.',
  input: Schema.Struct({
    agent: Fields.agent.annotations({ description: 'Whose memory: "hermes", "hermes/<profile>" or "shared".' }),
    query: Schema.String.annotations({ description: "Words to look for; quote a phrase, end a word with * for a prefix." }),
    limit: Schema.optional(Schema.Int.pipe(Schema.between(MEMORY_LIMITS.limitMin, MEMORY_LIMITS.limitMax)).annotations({
      description: `How many results (${MEMORY_LIMITS.limitMin} to ${MEMORY_LIMITS.limitMax}, default ${MEMORY_LIMITS.limitDefault}).`
    }))
  }),
  output: MemoryResults,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  invalidInput: (_field, message) => new MemoryInvalid({ message }),
  handler: ({ agent, query, limit }) => Effect.flatMap(Memory, (m) => m.search(agent, query, limit ?? MEMORY_LIMITS.limitDefault))
})
