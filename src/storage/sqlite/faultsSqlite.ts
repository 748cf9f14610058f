/** SQLite's result codes (better-sqlite3's `code`) that name a fault the operator can fix (`../faults.ts`). */
import type { StorageFaultKind } from "../faultKind.ts"

export const sqliteFaultKind = (code: string): StorageFaultKind | null => {
  if (code === "SQLITE_FULL") return "full"
  if (code.startsWith("SQLITE_READONLY") || code === "SQLITE_PERM" || code.startsWith("SQLITE_CANTOPEN")) return "readonly"
  if (code.startsWith("SQLITE_IOERR")) return "io"
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return "busy"
  return null
}
