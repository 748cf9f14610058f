import { Effect, Schema } from "effect"
import { SkillDoc } from "../../../domain/skills/wire.ts"
import { Skills } from "../../../services/skills/Skills.ts"
import { defineTool } from "../ToolDef.ts"
import { SkillName } from "./skillFields.ts"
import { SKILL_LIMITS, kib } from "../../../domain/limits.ts"

export default defineTool({
  name: "agent_skill_get",
  title: "Read a Hermes skill",
  description:
    `Read one skill's SKILL.md (redacted, cut at ${kib(SKILL_LIMITS.skillMdBytesMax)}) and the names of its supporting files. It is not an exact copy: do not build a replacement from it as it stands.`,
  input: Schema.Struct({ name: SkillName }),
  output: SkillDoc,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  handler: ({ name }) => Effect.flatMap(Skills, (s) => s.get(name))
})
