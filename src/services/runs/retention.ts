/**
 * Run retention: runs that ended more than `run_retention_days` ago are deleted with their events
 * and output (and so is their idempotency key), on the shared sweep schedule (`../retention.ts`).
 */
import { keepSweeping } from "../../common/retention.ts"
import type { LedgerShape } from "./Ledger.ts"

/** The sweeper fiber, in the caller's scope. */
export const startRetention = (ledger: LedgerShape, days: number) => keepSweeping("ended runs", days, ledger.sweep)
