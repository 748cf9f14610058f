/**
 * The reads the console and /metrics make through the tables' owners: the ledger's briefs (live
 * first, then the newest, ties in insertion order), live runs per client, totals and version; the
 * stop requests by run and their version, and their sweep after their runs'; Auth's clients and a version that moves on a rotation
 * (a change no listed field shows).
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, TestClock } from "effect"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { RedactorLive } from "../../src/common/Redactor.ts"
import { Auth, AuthLive } from "../../src/services/auth/Auth.ts"
import { Clients, ClientsLive } from "../../src/services/auth/Clients.ts"
import { StopRequests, StopRequestsLive } from "../../src/services/console/stopRequests.ts"
import { sweepStopRequests } from "../../src/services/console/stopRetention.ts"
import { Ledger } from "../../src/services/runs/Ledger.ts"
import { LedgerLive } from "../../src/services/runs/LedgerSql.ts"
import { TestDb } from "../support/testDb.ts"
import { ChangeFeedTest } from "../../src/storage/ChangeFeed.ts"
import { testConfig } from "../support/daemon.ts"
import { newRun } from "../support/records.ts"

const owners = Layer.mergeAll(LedgerLive, StopRequestsLive, ClientsLive).pipe(Layer.provideMerge(TestDb))

describe("the owners' reads for the console and /metrics", () => {
  it.effect("ledger: live runs first, then the newest, ties in insertion order; counts, totals and a moving version", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      // One millisecond for all three (the TestClock stands still): only insertion order tells them apart.
      // Inserted against the names' order, so a tie broken by name would show.
      yield* ledger.insert(newRun("b", { client: "bob" }))
      yield* ledger.insert(newRun("a"))
      yield* ledger.insert(newRun("c"))
      const before = yield* ledger.version
      yield* ledger.modify("c", () => ({ change: { status: "completed", events: [{ type: "run.completed", data: {} }] }, result: null }))
      expect(yield* ledger.version).not.toBe(before)
      expect((yield* ledger.briefs({ limit: 10 })).map((b) => b.runId)).toEqual(["a", "b", "c"])
      expect((yield* ledger.briefs({ client: "alice", limit: 10 })).map((b) => b.runId)).toEqual(["a", "c"])
      const c = yield* ledger.brief("c")
      expect(Option.map(c, (b) => [b.lastEventType, b.status])).toEqual(Option.some(["run.completed", "completed"]))
      expect(Option.isNone(yield* ledger.brief("nope"))).toBe(true)
      expect(yield* ledger.liveByClient).toEqual([{ client: "alice", face: "mcp", n: 1 }, { client: "bob", face: "mcp", n: 1 }])
      expect(yield* ledger.totals).toEqual({ runs: 3, events: 4 })
      expect(yield* ledger.runChoices).toEqual({ clients: ["alice", "bob"], agents: ["hermes"] })
      yield* TestClock.adjust(10)
      expect((yield* ledger.usageSince(5)).length).toBe(0)
    }).pipe(Effect.provide(owners)))

  it.effect("stop requests: by run, and a version that moves when one is made or carried out", () =>
    Effect.gen(function* () {
      const stops = yield* StopRequests
      expect((yield* stops.forRuns([])).size).toBe(0)
      const v0 = yield* stops.version
      yield* stops.request("r1", "page")
      const v1 = yield* stops.version
      expect(v1).not.toBe(v0)
      yield* TestClock.adjust(5)
      yield* stops.finish("r1", "stopping")
      expect(yield* stops.version).not.toBe(v1)
      const found = yield* stops.forRuns(["r1", "r2"])
      expect([...found.keys()]).toEqual(["r1"])
      expect(found.get("r1")?.outcome).toBe("stopping")
    }).pipe(Effect.provide(owners)))

  it.effect("stop requests go once the ledger no longer holds their run, and not before", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const stops = yield* StopRequests
      yield* ledger.insert(newRun("old"))
      yield* ledger.insert(newRun("live"))
      yield* stops.request("old", "cli")
      yield* stops.request("live", "page")
      yield* ledger.modify("old", () => ({ change: { status: "cancelled" }, result: null }))
      expect(yield* sweepStopRequests).toBe(0)
      yield* TestClock.adjust(10)
      expect(yield* ledger.sweep(5)).toBe(1)
      expect(yield* sweepStopRequests).toBe(1)
      expect([...(yield* stops.forRuns(["old", "live"])).keys()]).toEqual(["live"])
      expect(yield* sweepStopRequests).toBe(0)
    }).pipe(Effect.provide(owners)))

  it.effect("clients: listed by name, and the version moves on a rotation, which no listed field shows", () =>
    Effect.gen(function* () {
      const auth = yield* Auth
      const clients = yield* Clients
      yield* auth.addClient("zed", ["agents"])
      yield* auth.addClient("amy", ["agents", "memory"])
      expect((yield* clients.list).map((c) => [c.name, c.scopes])).toEqual([["amy", ["agents", "memory"]], ["zed", ["agents"]]])
      const listed = yield* clients.list
      const before = yield* clients.version
      yield* auth.rotate("amy")
      expect(yield* clients.list).toEqual(listed)
      expect(yield* clients.version).not.toBe(before)
      const sql = yield* SqlClient.SqlClient
      expect((yield* sql<{ n: number }>`SELECT count(*) AS n FROM clients`)[0]?.n).toBe(2)
    }).pipe(Effect.provide(AuthLive), Effect.provide(ChangeFeedTest), Effect.provide(RedactorLive), Effect.provide(AppConfigLive(testConfig())), Effect.provide(owners)))
})
