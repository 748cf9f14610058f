import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The embedded memory: notes, and an FTS5 index over their text and client tags. The index is
 * contentless (the notes table holds the text) with `contentless_delete` so a note can be removed
 * by rowid; `unicode61 remove_diacritics 2` folds case and accents.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE memory_notes (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    namespace TEXT NOT NULL,
    text TEXT NOT NULL,
    tags TEXT NOT NULL,
    client TEXT NOT NULL,
    created_at TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX memory_notes_namespace ON memory_notes (namespace, seq)`
  yield* sql`CREATE VIRTUAL TABLE memory_fts USING fts5(
    text, tags, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2'
  )`
})
