import { Schema } from "effect"
import { SkillInvalid } from "../../../domain/errors.ts"
import type { InvalidInputMapper } from "../ToolDef.ts"

/** The name is checked in full by the skill rules; the schema only documents it. */
export const SkillName = Schema.String.annotations({
  description: "The skill name: 1 to 64 lowercase letters, digits and single hyphens, not starting or ending with a hyphen."
})

export const skillRefusal: InvalidInputMapper = (_field, message) => new SkillInvalid({ message })
