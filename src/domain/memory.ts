/** Wire shapes of the memory tools: `agent_memory_*` on the agents server and the direct memory server. */
import { Schema } from "effect"

export const MemoryAdded = Schema.Struct({ status: Schema.Literal("ok"), id: Schema.String, timestamp: Schema.String })
export type MemoryAdded = typeof MemoryAdded.Type

/** A note as the memory tools show it (`memory_list`; a search hit adds its score). */
export const MemoryNoteView = Schema.Struct({
  id: Schema.String,
  text: Schema.String,
  tags: Schema.Array(Schema.String),
  namespace: Schema.String,
  timestamp: Schema.String
})
export type MemoryNoteView = typeof MemoryNoteView.Type
export const MemoryHit = Schema.Struct({ ...MemoryNoteView.fields, score: Schema.Number.pipe(Schema.finite()) })
export type MemoryHit = typeof MemoryHit.Type
export const MemoryResults = Schema.Struct({ status: Schema.Literal("ok"), results: Schema.Array(MemoryHit) })
export type MemoryResults = typeof MemoryResults.Type

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
