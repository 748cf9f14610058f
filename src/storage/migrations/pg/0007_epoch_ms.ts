import { Effect } from "effect"

/**
 * Nothing on PostgreSQL: SQLite's 0007 rewrites ISO text times as epoch milliseconds, and the
 * PostgreSQL forms of 0001, 0003 and 0004 make those columns BIGINT from the start. It stays in the
 * list so both dialects count the same migrations.
 */
export default Effect.void
