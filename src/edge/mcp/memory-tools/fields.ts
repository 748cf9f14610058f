/** Argument fields shared by the direct memory tools. */
import { Schema } from "effect"
import { MemoryInvalid } from "../../../domain/errors.ts"
import type { InvalidInputMapper } from "../ToolDef.ts"
import { MEMORY_LIMITS } from "../../../domain/limits.ts"

export const Scope = Schema.Literal("private", "shared", "all").annotations({
  description: '"private": your own notes; "shared": the box\'s shared notes; "all": both (default).'
})

/** The memory service refuses other limits too; the schema says so, so that clients know the bound. */
export const Limit = (fallback: number) =>
  Schema.Int.pipe(Schema.between(MEMORY_LIMITS.limitMin, MEMORY_LIMITS.limitMax)).annotations({
    description: `How many notes (${MEMORY_LIMITS.limitMin} to ${MEMORY_LIMITS.limitMax}, default ${fallback}).`
  })

/** Every undecodable argument of a memory tool is a malformed note or query. */
export const memoryRefusal: InvalidInputMapper = (_field, message) => new MemoryInvalid({ message })
