/**
 * Storage faults the operator can fix (a full disk, a folder the bridge may not write, a failing or
 * busy disk), told apart from bugs. They become `bridge.store_unavailable` (503) with a sentence that
 * says what failed and what to do; anything else stays `bridge.internal`. Recognised by SQLite's
 * result codes (better-sqlite3's `code`), PostgreSQL's SQLSTATEs and node-postgres's messages for a
 * lost connection (`pg/faultsPg.ts`), and node's errno codes, anywhere in an error's cause chain.
 */
import type { StorageFaultKind } from "./faultKind.ts"
import { pgFaultKind, pgLostConnection } from "./pg/faultsPg.ts"
import { sqliteFaultKind } from "./sqlite/faultsSqlite.ts"

export interface StorageFault {
  readonly kind: StorageFaultKind
  readonly code: string
  /** The file or folder the error names (node errors carry it), if any. */
  readonly path: string | undefined
}

/** node's errno codes; the database's own codes are its driver's (`sqlite/faultsSqlite.ts`). */
const errnoKind = (code: string): StorageFaultKind | null => {
  if (code === "ENOSPC" || code === "EDQUOT") return "full"
  if (code === "EROFS" || code === "EACCES" || code === "EPERM") return "readonly"
  if (code === "EIO") return "io"
  // A database server out of reach (PostgreSQL over TCP).
  if (code === "ECONNREFUSED" || code === "ECONNRESET" || code === "ETIMEDOUT" || code === "EHOSTUNREACH" || code === "ENETUNREACH" || code === "EPIPE") return "unavailable"
  return null
}

const kindOf = (code: string): StorageFaultKind | null => sqliteFaultKind(code) ?? pgFaultKind(code) ?? errnoKind(code)

/** The first storage fault in `cause`'s chain (at most 6 deep), or null. */
export const storageFaultOf = (cause: unknown): StorageFault | null => {
  let at: unknown = cause
  for (let depth = 0; depth < 6 && typeof at === "object" && at !== null; depth++) {
    const e = at as { code?: unknown; path?: unknown; cause?: unknown; message?: unknown; errors?: unknown }
    if (typeof e.code === "string") {
      const kind = kindOf(e.code)
      if (kind !== null) return { kind, code: e.code, path: typeof e.path === "string" ? e.path : undefined }
    }
    if (typeof e.message === "string" && pgLostConnection(e.message)) return { kind: "unavailable", code: "connection lost", path: undefined }
    // node's AggregateError (a host with several addresses, every one refused) carries its own.
    if (Array.isArray(e.errors)) {
      const inner = e.errors.map(storageFaultOf).find((f) => f !== null)
      if (inner !== undefined && inner !== null) return inner
    }
    at = e.cause
  }
  return null
}

/** One sentence for the caller and the operator: what failed, where, and what to do. */
export const storageFaultMessage = (fault: StorageFault, what: string, where: string): string => {
  const place = fault.path ?? where
  switch (fault.kind) {
    case "full":
      return `${what} failed: the disk holding ${place} is full (${fault.code}); free space there, then retry`
    case "readonly":
      return `${what} failed: the bridge may not write ${place} (${fault.code}: read-only or not permitted); make it writable for the bridge, then retry`
    case "io":
      return `${what} failed: the disk holding ${place} reported an I/O error (${fault.code}); check that the disk has free space and works, then retry`
    case "busy":
      return `${what} failed: the database ${place} is busy (${fault.code}); retry in a moment`
    case "unavailable":
      return `${what} failed: the database server ${place} does not answer (${fault.code}); check that it runs and accepts connections (the bridge reconnects by itself), then retry`
    case "timeout":
      return `${what} failed: the database ${place} cancelled a statement that ran longer than storage.statement_timeout_ms (${fault.code}); retry, or raise storage.statement_timeout_ms if such statements are expected`
  }
}
