/**
 * PostgreSQL's faults as the stores tell them (`src/storage/pg/faultsPg.ts`, `faults.ts`): by
 * SQLSTATE anywhere in the cause chain, by node-postgres's messages for a lost connection, through
 * node's AggregateError; the sentences name the place they are given (the server as host:port/db)
 * and what to do. A ledger failure that is such an outage is `bridge.store_unavailable` for the runs
 * tools (`services/runs/ledgerOutage.ts`); any other stays a defect.
 */
import { SqlError } from "@effect/sql/SqlError"
import { describe, expect, it } from "vitest"
import { Option } from "effect"
import { storageFaultMessage, storageFaultOf } from "../../src/storage/faults.ts"
import { pgFaultKind } from "../../src/storage/pg/faultsPg.ts"
import { LedgerError, LedgerRunMissing } from "../../src/services/runs/Ledger.ts"
import { ledgerOutage } from "../../src/services/runs/ledgerOutage.ts"

/** A server's error as node-postgres gives it (a DatabaseError with its SQLSTATE), under a SqlError. */
const fromServer = (code: string, message = "from the server") =>
  new SqlError({ message: "Failed to execute statement", cause: Object.assign(new Error(message), { code, severity: "ERROR" }) })

describe("PostgreSQL's SQLSTATEs", () => {
  it.each([
    ["53100", "full"],
    ["25006", "readonly"],
    ["57014", "timeout"],
    ["08006", "unavailable"],
    ["08001", "unavailable"],
    ["57P01", "unavailable"],
    ["57P02", "unavailable"],
    ["57P03", "unavailable"],
    ["40001", "busy"],
    ["40P01", "busy"],
    ["55P03", "busy"],
    ["53300", "busy"]
  ] as const)("%s is %s, found under the SqlError", (code, kind) => {
    expect(pgFaultKind(code)).toBe(kind)
    expect(storageFaultOf(fromServer(code))).toEqual({ kind, code, path: undefined })
  })

  it.each(["23505", "42P01", "22P02", "0800", "XX000"])("%s is no fault the operator fixes (a bug stays bridge.internal)", (code) => {
    expect(pgFaultKind(code)).toBeNull()
    expect(storageFaultOf(fromServer(code))).toBeNull()
  })
})

describe("a connection that went away", () => {
  it.each(["Connection terminated unexpectedly", "Connection terminated due to connection timeout", "timeout exceeded when trying to connect", "Client has encountered a connection error and is not queryable"])(
    "node-postgres's %j is unavailable",
    (message) => {
      expect(storageFaultOf(new SqlError({ message: "Failed to execute statement", cause: new Error(message) }))).toEqual({ kind: "unavailable", code: "connection lost", path: undefined })
    }
  )

  it("a refused connection is unavailable, also inside node's AggregateError (several addresses)", () => {
    const refused = (address: string) => Object.assign(new Error(`connect ECONNREFUSED ${address}:5432`), { code: "ECONNREFUSED", address, port: 5432 })
    expect(storageFaultOf(new SqlError({ message: "Failed to acquire connection", cause: refused("127.0.0.1") }))?.kind).toBe("unavailable")
    const both = new AggregateError([refused("::1"), refused("127.0.0.1")], "")
    expect(storageFaultOf(new SqlError({ message: "Failed to acquire connection", cause: both }))?.kind).toBe("unavailable")
  })

  it("a plain error message is no fault", () => {
    expect(storageFaultOf(new SqlError({ message: "Failed to execute statement", cause: new Error("syntax error at or near \"SELEC\"") }))).toBeNull()
  })
})

describe("the sentences", () => {
  it("name the server they are given, say what to do, and carry no URL", () => {
    const down = storageFaultMessage(storageFaultOf(fromServer("57P01"))!, "the ledger could not get", "db.internal:5432/bridge")
    expect(down).toBe(
      "the ledger could not get failed: the database server db.internal:5432/bridge does not answer (57P01); check that it runs and accepts connections (the bridge reconnects by itself), then retry"
    )
    const slow = storageFaultMessage(storageFaultOf(fromServer("57014"))!, "the inbox could not list", "db.internal:5432/bridge")
    expect(slow).toContain("ran longer than storage.statement_timeout_ms (57014)")
    expect(slow).not.toContain("postgres://")
  })
})

describe("a ledger failure for the runs tools", () => {
  const place = "127.0.0.1:5432/bridge"
  it("the server's outage or a cancelled statement is store_unavailable naming the server", () => {
    for (const code of ["57P01", "08006", "57014"]) {
      const e = ledgerOutage(new LedgerError({ operation: "get", cause: fromServer(code) }), place)
      expect(Option.map(e, (x) => x._tag)).toEqual(Option.some("StoreUnavailable"))
      expect(Option.getOrThrow(e).message).toContain(place)
    }
  })

  it("anything else stays a defect (SQLite's busy or full reads included, as before)", () => {
    expect(ledgerOutage(new LedgerError({ operation: "get", cause: fromServer("40P01") }), place)).toEqual(Option.none())
    expect(ledgerOutage(new LedgerError({ operation: "get", cause: Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" }) }), place)).toEqual(Option.none())
    expect(ledgerOutage(new LedgerError({ operation: "get", cause: fromServer("23505") }), place)).toEqual(Option.none())
    expect(ledgerOutage(new LedgerRunMissing({ runId: "run_x" }), place)).toEqual(Option.none())
  })
})
