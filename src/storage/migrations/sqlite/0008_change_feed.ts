import { Effect } from "effect"

/**
 * Nothing on SQLite: its change feed reads `data_version` (../../sqlite/ChangeFeedSqlite.ts) and
 * needs no trigger. PostgreSQL's form creates the NOTIFY triggers; it stays in the list so both
 * dialects count the same migrations.
 */
export default Effect.void
