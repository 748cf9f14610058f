/**
 * `LedgerTest`: the real SQLite ledger over a fresh in-memory database (migrated like the real
 * one); it records runs and events exactly as the daemon does, and provides the `SqlClient` for a
 * test to look at the tables. `LedgerFaulty.ts` is the same ledger with injected storage faults.
 */
import { Layer } from "effect"
import { DbMemory } from "../../storage/Db.ts"
import { LedgerLive } from "./LedgerSql.ts"

export const LedgerTest = LedgerLive.pipe(Layer.provideMerge(DbMemory))
