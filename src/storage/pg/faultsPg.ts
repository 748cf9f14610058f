/**
 * PostgreSQL's faults the operator can fix (`../faults.ts`): by SQLSTATE (node-postgres's `code` on
 * a server's error), and by node-postgres's own messages for a connection that went away with no
 * code at all (the server stopped mid-query, a pool that could not connect in time).
 */
import type { StorageFaultKind } from "../faultKind.ts"

export const pgFaultKind = (code: string): StorageFaultKind | null => {
  if (code === "53100") return "full" // disk_full
  if (code === "25006") return "readonly" // read_only_sql_transaction (a standby, or default_transaction_read_only)
  if (code === "57014") return "timeout" // query_canceled: statement_timeout (storage.statement_timeout_ms)
  // connection_exception (08xxx), admin_shutdown, crash_shutdown, cannot_connect_now (starting up).
  if (code.startsWith("08") && code.length === 5) return "unavailable"
  if (code === "57P01" || code === "57P02" || code === "57P03") return "unavailable"
  // serialization_failure, deadlock_detected, lock_not_available, too_many_connections.
  if (code === "40001" || code === "40P01" || code === "55P03" || code === "53300") return "busy"
  return null
}

/** node-postgres's messages for a lost or unopenable connection (they carry no code). */
const LOST = [
  /^Connection terminated/,
  /^Client has encountered a connection error and is not queryable/,
  /^timeout exceeded when trying to connect/,
  /^Client was closed and is not queryable/
]

export const pgLostConnection = (message: string): boolean => LOST.some((re) => re.test(message))
