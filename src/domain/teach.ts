/** Wire shapes of the teach tools and `agents_list` (docs/REFERENCE.md). */
import { Schema } from "effect"

export const AgentRow = Schema.Union(
  Schema.Struct({
    name: Schema.String,
    agent_id: Schema.String,
    health: Schema.Literal("ok", "down", "unauthorized"),
    keyed: Schema.Boolean,
    model_id: Schema.NullOr(Schema.String)
  }),
  Schema.Struct({ name: Schema.Literal("pi"), runnable: Schema.Literal(false) })
)
export const AgentsList = Schema.Struct({ agents: Schema.Array(AgentRow) })
export type AgentsList = typeof AgentsList.Type

export const MemoryAdded = Schema.Struct({ status: Schema.Literal("ok"), id: Schema.String, timestamp: Schema.String })
export type MemoryAdded = typeof MemoryAdded.Type

export const MemoryHit = Schema.Struct({
  id: Schema.String,
  text: Schema.String,
  tags: Schema.Array(Schema.String),
  namespace: Schema.String,
  timestamp: Schema.String,
  score: Schema.Number.pipe(Schema.finite())
})
export type MemoryHit = typeof MemoryHit.Type
export const MemoryResults = Schema.Struct({ status: Schema.Literal("ok"), results: Schema.Array(MemoryHit) })
export type MemoryResults = typeof MemoryResults.Type

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

const NullStrings = Schema.NullOr(Schema.Array(Schema.String))
export const Capabilities = Schema.Struct({
  agent: Schema.String,
  profile: Schema.String,
  api_server_version: Schema.NullOr(Schema.String),
  model_aliases: Schema.NullOr(
    Schema.Record({ key: Schema.String, value: Schema.Struct({ model: Schema.NullOr(Schema.String), provider: Schema.NullOr(Schema.String) }) })
  ),
  toolsets_enabled: NullStrings,
  toolsets_disabled: NullStrings,
  mcp_servers: NullStrings,
  skills_dirs: NullStrings,
  platforms_enabled: NullStrings,
  approvals_mode: Schema.NullOr(Schema.String)
})
export type Capabilities = typeof Capabilities.Type

/** The direct memory server (`/mcp/memory/mcp`): a note as `memory_list` shows it. */
export const MemoryNoteView = Schema.Struct({
  id: Schema.String,
  text: Schema.String,
  tags: Schema.Array(Schema.String),
  namespace: Schema.String,
  timestamp: Schema.String
})
export type MemoryNoteView = typeof MemoryNoteView.Type
export const MemoryStored = Schema.Struct({
  status: Schema.Literal("ok"),
  id: Schema.String,
  timestamp: Schema.String,
  namespace: Schema.String
})
export type MemoryStored = typeof MemoryStored.Type
export const MemoryList = Schema.Struct({
  status: Schema.Literal("ok"),
  notes: Schema.Array(MemoryNoteView),
  /** The `offset` of the next page, or null after the last. */
  next_offset: Schema.NullOr(Schema.Int)
})
export type MemoryList = typeof MemoryList.Type
export const MemoryDeleted = Schema.Struct({ status: Schema.Literal("ok"), id: Schema.String, deleted: Schema.Literal(true) })
export type MemoryDeleted = typeof MemoryDeleted.Type
