import { Effect, Schema } from "effect"
import { SkillChangeQueued } from "../../../domain/skills/wire.ts"
import { Skills } from "../../../services/skills/Skills.ts"
import { defineTool } from "../ToolDef.ts"
import { SkillName, skillRefusal } from "./skillFields.ts"
import { SKILL_LIMITS, kib } from "../../../domain/limits.ts"

export default defineTool({
  name: "agent_skill_put",
  title: "Propose a skill change",
  description:
    "Propose creating or replacing the drop-in skill `name`, which replaces the whole skill (put every supporting file in `files`); returns the pending approval id. Nothing is written until the operator approves it in the inbox.",
  input: Schema.Struct({
    name: SkillName,
    skill_md: Schema.String.annotations({
      description: `The whole SKILL.md: YAML frontmatter with the same name and a description, then the body (at most ${kib(SKILL_LIMITS.skillMdBytesMax)}).`
    }),
    files: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }).annotations({
      description: "Supporting files: plain file name to text (at most 16; whole push at most 48 KiB)."
    }))
  }),
  output: SkillChangeQueued,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  invalidInput: skillRefusal,
  handler: ({ name, skill_md, files }) => Effect.flatMap(Skills, (s) => s.put(name, skill_md, files))
})
