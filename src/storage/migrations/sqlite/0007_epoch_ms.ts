import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * One way to store time: the inbox, the memory notes and the clients held ISO 8601 text, the ledger
 * epoch milliseconds. This rewrites the text columns as INTEGER epoch milliseconds, exactly (SQLite
 * parses the text to whole milliseconds, and the double `julianday` returns is rounded back to them).
 *
 * SQLite cannot change a column's type in place, so each table is made again: the same columns,
 * constraints and rowids (the inbox orders by rowid, the memory index points at `seq`), the rows
 * copied with their times converted, and the indexes made again. A time that does not parse stops the migration with its table and row
 * named rather than store a wrong time.
 */
const ms = (column: string) => `CAST(round((julianday(${column}) - 2440587.5) * 86400000.0) AS INTEGER)`

interface Rebuild {
  readonly table: string
  /** The table's columns and constraints, as in its CREATE TABLE. */
  readonly definition: string
  /** Every column, in order; the time columns among them are converted. */
  readonly columns: ReadonlyArray<string>
  readonly times: ReadonlyArray<string>
  readonly key: string
  readonly indexes: ReadonlyArray<string>
}

const inbox: Rebuild = {
  table: "inbox",
  definition: `id TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('skill_put', 'skill_delete', 'run_approval')),
    client TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'expired', 'withdrawn')),
    created_at INTEGER NOT NULL,
    decided_at INTEGER,
    decided_by TEXT,
    name TEXT,
    content_key TEXT,
    run_id TEXT,
    request_id TEXT,
    payload TEXT NOT NULL`,
  columns: ["rowid", "id", "kind", "client", "state", "created_at", "decided_at", "decided_by", "name", "content_key", "run_id", "request_id", "payload"],
  times: ["created_at", "decided_at"],
  key: "id",
  indexes: [
    "CREATE INDEX inbox_state_created ON inbox (state, created_at)",
    "CREATE INDEX inbox_pending_skill ON inbox (name) WHERE state = 'pending' AND kind IN ('skill_put', 'skill_delete')",
    "CREATE INDEX inbox_pending_client ON inbox (client) WHERE state = 'pending' AND kind IN ('skill_put', 'skill_delete')",
    "CREATE UNIQUE INDEX inbox_run_request ON inbox (run_id, request_id) WHERE kind = 'run_approval'",
    "CREATE INDEX inbox_closed_decided_at ON inbox (decided_at) WHERE state <> 'pending'"
  ]
}

const memoryNotes: Rebuild = {
  table: "memory_notes",
  definition: `seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    namespace TEXT NOT NULL,
    text TEXT NOT NULL,
    tags TEXT NOT NULL,
    client TEXT NOT NULL,
    created_at INTEGER NOT NULL`,
  columns: ["seq", "id", "namespace", "text", "tags", "client", "created_at"],
  times: ["created_at"],
  key: "id",
  indexes: ["CREATE INDEX memory_notes_namespace ON memory_notes (namespace, seq)"]
}

const clients: Rebuild = {
  table: "clients",
  definition: `name TEXT PRIMARY KEY,
    key_digest TEXT NOT NULL UNIQUE,
    scopes TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at INTEGER`,
  columns: ["rowid", "name", "key_digest", "scopes", "created_at", "last_used_at", "revoked_at"],
  times: ["created_at", "last_used_at", "revoked_at"],
  key: "name",
  indexes: []
}

const rebuild = (t: Rebuild) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    for (const column of t.times) {
      const bad = yield* sql.unsafe<{ key: string; value: string }>(
        `SELECT ${t.key} AS key, ${column} AS value FROM ${t.table} WHERE ${column} IS NOT NULL AND julianday(${column}) IS NULL LIMIT 1`
      )
      if (bad[0] !== undefined) {
        return yield* Effect.fail(new Error(`${t.table}.${column} of ${t.key} '${bad[0].key}' is no time: '${bad[0].value}'`))
      }
    }
    // The converted rows wait in a TEMP table (outside the database file) while the table is made
    // again, so the new table and its indexes reuse the pages the old ones freed: the file does not
    // grow and keeps no free pages (a full disk stays full, and nothing needs a VACUUM).
    const copy = `${t.table}_epoch_ms`
    const columns = t.columns.join(", ")
    const selected = t.columns.map((c) => (t.times.includes(c) ? `${ms(c)} AS ${c}` : c)).join(", ")
    yield* sql.unsafe(`CREATE TEMP TABLE ${copy} AS SELECT ${selected} FROM ${t.table}`)
    yield* sql.unsafe(`DROP TABLE ${t.table}`)
    yield* sql.unsafe(`CREATE TABLE ${t.table} (${t.definition})`)
    yield* sql.unsafe(`INSERT INTO ${t.table} (${columns}) SELECT ${columns} FROM temp.${copy}`)
    yield* sql.unsafe(`DROP TABLE temp.${copy}`)
    for (const index of t.indexes) yield* sql.unsafe(index)
  })

export default Effect.forEach([inbox, memoryNotes, clients], rebuild, { discard: true })
