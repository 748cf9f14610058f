import { Effect, Schema } from "effect"
import { SkillChangeQueued } from "../../../domain/skills/wire.ts"
import { Skills } from "../../../services/skills/Skills.ts"
import { defineTool } from "../ToolDef.ts"
import { SkillName, skillRefusal } from "./skillFields.ts"

export default defineTool({
  name: "agent_skill_delete",
  title: "Propose deleting a skill",
  description:
    "Propose removing the drop-in skill `name`; returns the pending approval id. Nothing is deleted until the operator approves it in the inbox.",
  input: Schema.Struct({ name: SkillName }),
  output: SkillChangeQueued,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  invalidInput: skillRefusal,
  handler: ({ name }) => Effect.flatMap(Skills, (s) => s.remove(name))
})
