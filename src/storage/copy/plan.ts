/**
 * What `agent-bridge storage copy` moves, in dependency order (no table refers to one above it
 * today: the schema has no foreign keys, so the order is the owners' logical one): each table's
 * key (the order rows are read, copied and digested in), and the columns whose values the copy
 * does not take from a same-named SQLite column.
 *
 * - `insert_seq` (runs, inbox) is PostgreSQL's stand-in for SQLite's rowid: it takes the rowid, so
 *   the insertion order (ties of `created_at`) is the same after the move.
 * - `search` (memory_notes) is derived: the memory index writes it (`derived` in the plan).
 * A table on the target that the plan does not name stops the copy (a migration added it and
 * nobody taught the copy), never a silent half move.
 */
export interface CopyTable {
  readonly name: string
  readonly key: ReadonlyArray<string>
  /** Target columns filled from SQLite's rowid. */
  readonly fromRowid?: string
  /** Target columns the copy leaves to a derivation step (not copied, not digested). */
  readonly derived?: ReadonlyArray<string>
  /** Identity columns whose sequence must move past the copied values. */
  readonly identity?: string
}

export const COPY_PLAN: ReadonlyArray<CopyTable> = [
  { name: "clients", key: ["name"] },
  { name: "runs", key: ["run_id"], fromRowid: "insert_seq", identity: "insert_seq" },
  { name: "run_events", key: ["run_id", "seq"] },
  { name: "run_output", key: ["run_id", "start_byte"] },
  { name: "run_stop_requests", key: ["run_id"] },
  // Slots of starts on their way to Hermes (migration 0016): empty on a stopped box, unless it was
  // killed mid-start; the moved daemon's count ignores them once stale.
  { name: "run_slots", key: ["token"] },
  { name: "a2a_push_configs", key: ["run_id", "config_id"] },
  { name: "a2a_push_outbox", key: ["delivery_id"] },
  { name: "inbox", key: ["id"], fromRowid: "insert_seq", identity: "insert_seq" },
  { name: "memory_notes", key: ["seq"], derived: ["search"], identity: "seq" },
  // The 2025-era MCP sessions (migration 0011): a stopped box's sessions, which clients may resume
  // on the moved daemon within their idle limit.
  { name: "mcp_sessions", key: ["session_id"] },
  // The inbox's operator sessions and sign-in failures (migration 0012): an operator signed in on
  // the stopped box stays signed in on the moved daemon (same admin key), a locked address locked.
  { name: "inbox_sessions", key: ["session_digest"] },
  { name: "inbox_sign_in_failures", key: ["address"] },
  // OAuth (migration 0015): the authorization server's records (digests and payloads), its cookie
  // keys, and the consents: a connector's grant and refresh token keep working on the moved daemon.
  { name: "oauth_store", key: ["model", "id"] },
  { name: "oauth_secrets", key: ["name"] },
  { name: "oauth_consents", key: ["id"] }
]

/** Rows per read and per INSERT (runs has 25 columns: far under PostgreSQL's 65535 parameters). */
export const COPY_BATCH = 500

/**
 * Tables in the target that are not the bridge's data and are neither copied nor refused:
 * `@effect/cluster`'s (`cluster_*`: runners, shard locks, its mailbox of Follow messages), which a
 * daemon on the database creates and a SQLite box never had.
 */
export const NOT_COPIED_PREFIXES: ReadonlyArray<string> = ["cluster_"]

