/**
 * The failures `LedgerFaulty` injects, as SQLite raises them: better-sqlite3's own error with
 * `SQLITE_BUSY` (the database is locked) or `SQLITE_FULL` (the disk is full), wrapped the way
 * @effect/sql and the ledger wrap it, so every layer above meets exactly what a real fault gives.
 */
import { SqlError } from "@effect/sql/SqlError"
import Database from "better-sqlite3"
import { LedgerError } from "../Ledger.ts"

const SQLITE: Record<"busy" | "full", { readonly code: string; readonly message: string }> = {
  busy: { code: "SQLITE_BUSY", message: "database is locked" },
  full: { code: "SQLITE_FULL", message: "database or disk is full" }
}

/** The error SQLite's driver raises, wrapped the way @effect/sql and the ledger wrap it. */
export const sqliteFailure = (op: string, kind: "busy" | "full") =>
  new LedgerError({
    operation: op,
    cause: new SqlError({ cause: new Database.SqliteError(SQLITE[kind].message, SQLITE[kind].code), message: "Failed to execute statement" })
  })
