/** Wire shapes of the skill tools (`agent_skills_list`, `agent_skill_get`, `agent_skill_put`, `agent_skill_delete`). */
import { Schema } from "effect"

export const SkillSummary = Schema.Struct({
  name: Schema.String,
  source: Schema.Literal("shipped", "dropin"),
  category: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  mtime: Schema.String,
  files: Schema.Array(Schema.String),
  broken: Schema.Boolean
})
export type SkillSummary = typeof SkillSummary.Type
export const SkillsList = Schema.Struct({ skills: Schema.Array(SkillSummary) })
export type SkillsList = typeof SkillsList.Type

export const SkillDoc = Schema.Struct({
  name: Schema.String,
  source: Schema.Literal("shipped", "dropin"),
  category: Schema.NullOr(Schema.String),
  skill_md: Schema.String,
  files: Schema.Array(Schema.String),
  truncated: Schema.optional(Schema.Boolean)
})
export type SkillDoc = typeof SkillDoc.Type

export const SkillChangeQueued = Schema.Struct({
  status: Schema.Literal("pending_approval"),
  approval_id: Schema.String,
  name: Schema.String
})
export type SkillChangeQueued = typeof SkillChangeQueued.Type
