/**
 * A ledger failure that is the database server's outage, not a bug: PostgreSQL down or restarting
 * (`unavailable`), or a statement it cancelled past `storage.statement_timeout_ms` (`timeout`). The
 * runs tools answer those as `bridge.store_unavailable` (503, a sentence naming the server as
 * `host:port/db`, retry later) while the daemon reconnects by itself; every other ledger failure
 * stays a defect (`bridge.internal` under an incident), as SQLite's busy or full ledger reads are.
 */
import { Effect, Option, Schedule } from "effect"
import { StoreUnavailable } from "../../domain/errors.ts"
import { storageFaultMessage, storageFaultOf } from "../../storage/faults.ts"
import type { LedgerError, LedgerRunMissing } from "./Ledger.ts"

/** The outage under `failure`, as the caller's error, or none when it is no outage. */
export const ledgerOutage = (failure: LedgerError | LedgerRunMissing, place: string): Option.Option<StoreUnavailable> => {
  if (failure._tag !== "LedgerError") return Option.none()
  const fault = storageFaultOf(failure.cause)
  if (fault === null || (fault.kind !== "unavailable" && fault.kind !== "timeout")) return Option.none()
  return Option.some(new StoreUnavailable({ message: storageFaultMessage(fault, `the ledger could not ${failure.operation}`, place) }))
}

/** Fails with the outage (logged once as a warning), or runs `otherwise` for any other failure. */
export const failOnOutage = <E, R>(failure: LedgerError | LedgerRunMissing, place: string, otherwise: Effect.Effect<never, E, R>): Effect.Effect<never, E | StoreUnavailable, R> =>
  Option.match(ledgerOutage(failure, place), {
    onNone: () => otherwise,
    onSome: (e) => Effect.logWarning(e.message).pipe(Effect.zipRight(Effect.fail(e)))
  })

/** The database server does not answer (not a cancelled statement: that one is retried by a restart). */
export const isServerOutage = (e: unknown): boolean =>
  typeof e === "object" && e !== null && (e as { _tag?: unknown })._tag === "LedgerError" && storageFaultOf((e as LedgerError).cause)?.kind === "unavailable"

/**
 * How a follower retries one batch's commit while the database server is out: in place, holding the
 * batch (Hermes's stream waits behind it), 200 ms doubling to at most 2 s apart, for up to 10
 * minutes; then the failure goes to the supervisor, which restarts the follower (resync, replay).
 * In place because a restart re-reads Hermes's stream from the stored event id, and a Hermes that
 * offers no replay would leave only its status to reconcile from: the held batch loses nothing.
 */
export const OUTAGE_RETRY = Schedule.exponential("200 millis").pipe(Schedule.union(Schedule.spaced("2 seconds")), Schedule.upTo("10 minutes"))
