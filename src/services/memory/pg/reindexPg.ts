/**
 * Writes every note's search vector again from its text and tags (`storage copy` moves the notes
 * without it: the vector is derived, and SQLite's index is FTS5's, not a column to copy).
 */
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import { indexedTags } from "../policy.ts"
import { memoryIndexPg } from "./MemoryIndexPg.ts"

const BATCH = 500

export const reindexNotesPg = (sql: SqlClient.SqlClient): Effect.Effect<void, SqlError> =>
  Effect.gen(function* () {
    const index = memoryIndexPg(sql)
    for (let after = -1; ;) {
      const notes = yield* sql<{ seq: number; text: string; tags: string }>`
        SELECT seq, text, tags FROM memory_notes WHERE seq > ${after} ORDER BY seq LIMIT ${BATCH}`
      for (const n of notes) {
        // Tags are stored as a JSON array of strings (MemoryStoreLive); anything else indexes no tags.
        const parsed: unknown = (() => { try { return JSON.parse(n.tags) } catch { return [] } })()
        const tags = Array.isArray(parsed) ? parsed.filter((t): t is string => typeof t === "string") : []
        yield* index.add(n.seq, n.text, indexedTags(tags))
      }
      if (notes.length < BATCH) return
      after = notes[notes.length - 1]!.seq
    }
  })
