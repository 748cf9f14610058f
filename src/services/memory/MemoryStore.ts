/**
 * The storage side of memory: notes in namespaces with full-text search. It stores whatever
 * namespace it is told; choosing namespaces is policy (`policy.ts`) and belongs to the callers.
 *
 * Failures are the bridge's own: `MemoryInvalid` for a query it cannot use, `MemoryFailed` for
 * anything the store itself got wrong (the cause is logged, never sent).
 */
import type { Effect, Option } from "effect"
import { Context, Schema } from "effect"
import { IsoFromEpochMs } from "../../common/time.ts"
import type { MemoryFailed, MemoryInvalid, QuotaExceeded } from "../../domain/errors.ts"

/**
 * A note as stored, declared once: the Type is the note, the Encoded side its `memory_notes`
 * columns (`storage/rows.ts` derives them, the decode and the INSERT values): the tags as JSON
 * text, the time as epoch milliseconds (migration 0007). The table's own `seq`, `bytes` and the
 * index's `search` are not the note's.
 */
export const Note = Schema.Struct({
  id: Schema.String,
  namespace: Schema.String,
  text: Schema.String,
  tags: Schema.parseJson(Schema.Array(Schema.String)),
  /** The bridge client that wrote the note (the owner for `memory_delete`). */
  client: Schema.String,
  /** ISO 8601 UTC. */
  created_at: IsoFromEpochMs
})
export interface Note extends Schema.Schema.Type<typeof Note> {}

/** What a note is added with: the note but its id and time, which the store gives. */
export interface NoteInput extends Omit<Note, "id" | "created_at"> {}

export interface ScoredNote extends Note {
  /** Relevance, higher is better (the negated bm25 rank). */
  readonly score: number
}

export interface SearchRequest {
  readonly namespaces: ReadonlyArray<string>
  /** User text: words, "quoted phrases", prefix* words. Never spliced into MATCH as it stands. */
  readonly query: string
  readonly limit: number
}

export interface ListRequest {
  readonly namespaces: ReadonlyArray<string>
  readonly limit: number
  readonly offset: number
}

export interface MemoryStoreShape {
  /**
   * `MemoryInvalid` when the database cannot hold the text (NUL on PostgreSQL); `QuotaExceeded`
   * (nothing written) when the note would take its client past `limits.memory_notes_per_client`
   * or `limits.memory_bytes_per_client`.
   */
  readonly add: (note: NoteInput) => Effect.Effect<Note, MemoryInvalid | MemoryFailed | QuotaExceeded>
  /** Best matches first. */
  readonly search: (request: SearchRequest) => Effect.Effect<ReadonlyArray<ScoredNote>, MemoryInvalid | MemoryFailed>
  /** Newest first. */
  readonly list: (request: ListRequest) => Effect.Effect<ReadonlyArray<Note>, MemoryFailed>
  readonly get: (id: string) => Effect.Effect<Option.Option<Note>, MemoryFailed>
  /** True when a note was removed. */
  readonly remove: (id: string) => Effect.Effect<boolean, MemoryFailed>
}

export class MemoryStore extends Context.Tag("agent-bridge/MemoryStore")<MemoryStore, MemoryStoreShape>() {}
