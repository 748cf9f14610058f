import { Effect, Schema } from "effect"
import { SkillsList } from "../../../domain/skills/wire.ts"
import { Skills } from "../../../services/skills/Skills.ts"
import { defineTool } from "../ToolDef.ts"

export default defineTool({
  name: "agent_skills_list",
  title: "List Hermes skills",
  description:
    "List the skills Hermes loads, `shipped` (read-only) and `dropin` (the operator's), with category, description, supporting file names, and broken=true where the frontmatter cannot be read. Use it before agent_skill_get or agent_skill_put.",
  input: Schema.Struct({}),
  output: SkillsList,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  handler: () => Effect.flatMap(Skills, (s) => s.list)
})
