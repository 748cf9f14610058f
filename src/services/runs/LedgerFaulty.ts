/**
 * A Ledger that fails or stalls at chosen points: the SQLite ledger behind a proxy that, for the
 * next N calls of one operation, answers the way SQLite does when the database is locked
 * (`SQLITE_BUSY`) or the disk is full (`SQLITE_FULL`), or first stalls (a lock held elsewhere, a
 * slow disk) and then fails or goes on. Counts every call per operation.
 */
import { Effect, Layer } from "effect"
import { SqlError } from "@effect/sql/SqlError"
import { Ledger, LedgerError, type LedgerShape } from "./Ledger.ts"
import { makeLedgerSql } from "./LedgerSql.ts"
import { sqliteFailure } from "./sqlite/ledgerFaultsSqlite.ts"

export type LedgerOp = keyof LedgerShape

export type Fault =
  | { readonly kind: "busy" }
  | { readonly kind: "full" }
  /** The database server went away mid-statement (PostgreSQL stopped or restarting). */
  | { readonly kind: "unavailable" }
  /** Waits, then fails (`then`) or does the real work. */
  | { readonly kind: "stall"; readonly ms: number; readonly then?: "busy" | "full" }

/** The injected failures are SQLite's own (`sqlite/ledgerFaultsSqlite.ts`); re-exported for the tests that build them. */
export { sqliteFailure }

export interface FaultControl {
  /** The next `times` calls of `op` meet `fault`. */
  readonly inject: (op: LedgerOp, fault: Fault, times?: number) => void
  readonly clear: () => void
  /** Calls per operation so far (faulty or not). */
  readonly calls: (op: LedgerOp) => number
  /** Faults that have fired so far. */
  readonly fired: () => number
  /** Faults still armed. */
  readonly armed: () => number
}

export const makeFaultControl = () => {
  let plans: Array<{ op: LedgerOp; fault: Fault; left: number }> = []
  const counts = new Map<LedgerOp, number>()
  let fired = 0
  const take = (op: LedgerOp): Fault | undefined => {
    counts.set(op, (counts.get(op) ?? 0) + 1)
    const plan = plans.find((p) => p.op === op && p.left > 0)
    if (plan === undefined) return undefined
    plan.left--
    plans = plans.filter((p) => p.left > 0)
    fired++
    return plan.fault
  }
  const control: FaultControl = {
    inject: (op, fault, times = 1) => void plans.push({ op, fault, left: times }),
    clear: () => void (plans = []),
    calls: (op) => counts.get(op) ?? 0,
    fired: () => fired,
    armed: () => plans.reduce((n, p) => n + p.left, 0)
  }
  return { control, take }
}

/** What node-postgres raises when the server stops under a statement, wrapped as the ledger wraps it. */
const serverGone = (op: string) =>
  new LedgerError({ operation: op, cause: new SqlError({ cause: new Error("Connection terminated unexpectedly"), message: "Failed to execute statement" }) })

/** Wraps one ledger operation: the armed fault first, else the real thing. */
const guard = <A, E>(op: LedgerOp, take: (op: LedgerOp) => Fault | undefined, real: () => Effect.Effect<A, E>): Effect.Effect<A, E | LedgerError> =>
  Effect.suspend((): Effect.Effect<A, E | LedgerError> => {
    const fault = take(op)
    if (fault === undefined) return real()
    if (fault.kind === "unavailable") return Effect.fail(serverGone(op))
    if (fault.kind !== "stall") return Effect.fail(sqliteFailure(op, fault.kind))
    const after = fault.then
    const next: Effect.Effect<A, E | LedgerError> = after === undefined ? real() : Effect.fail(sqliteFailure(op, after))
    return Effect.zipRight(Effect.sleep(fault.ms), next)
  })

/**
 * The SQLite ledger behind the fault proxy. Every operation is wrapped, whatever the interface
 * holds: functions per call, and plain effects (`active`) per run.
 */
export const LedgerFaulty = (faults: ReturnType<typeof makeFaultControl>) =>
  Layer.effect(
    Ledger,
    Effect.map(makeLedgerSql, (real): LedgerShape => {
      const entries = Object.entries(real).map(([name, member]) => {
        const op = name as LedgerOp
        const wrapped = Effect.isEffect(member)
          ? guard(op, faults.take, () => member as Effect.Effect<unknown, unknown>)
          : (...args: ReadonlyArray<unknown>) => guard(op, faults.take, () => (member as (...a: ReadonlyArray<unknown>) => Effect.Effect<unknown, unknown>)(...args))
        return [name, wrapped] as const
      })
      return Object.fromEntries(entries) as unknown as LedgerShape
    })
  )
