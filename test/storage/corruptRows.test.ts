/**
 * Rows are decoded, not cast, in every store beside the ledger (which has its own file,
 * test/runs/ledger-rows.test.ts): a row the bridge could not have written fails the read with the
 * store's own typed error (the inbox's `bridge.internal` under a logged incident, the memory's
 * `MemoryFailed`), a defect where the store's SQL errors are defects too (identity), or a typed
 * `ParseError` beside the `SqlError` the console's readers already fail with (their callers treat
 * both alike; a run's summary is the ledger's `LedgerError` over it), never a wrong value passed on.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer } from "effect"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { RedactorLive } from "../../src/common/Redactor.ts"
import { Auth, AuthLive } from "../../src/services/auth/Auth.ts"
import { ChangeFeedTest } from "../../src/storage/ChangeFeed.ts"
import { makeConsoleQueries } from "../../src/services/console/queries.ts"
import { makeStopRequests, StopRequestsLive } from "../../src/services/console/stopRequests.ts"
import { ClientsLive } from "../../src/services/auth/Clients.ts"
import { LedgerLive } from "../../src/services/runs/LedgerSql.ts"
import { InboxChangesLive } from "../../src/services/inbox/InboxChanges.ts"
import { InboxStore, InboxStoreLive } from "../../src/services/inbox/InboxStore.ts"
import { MemoryStore } from "../../src/services/memory/MemoryStore.ts"
import { MemoryStoreLive } from "../../src/services/memory/MemoryStoreLive.ts"
import { TestDb } from "../support/testDb.ts"
import { testConfig } from "../support/daemon.ts"

const approval = {
  kind: "run_approval" as const,
  id: "apr_1",
  client: "alice",
  state: "pending" as const,
  created_at: "2026-05-01T12:00:00.000Z",
  decided_at: null,
  decided_by: null,
  run_id: "run_1",
  agent: "hermes",
  hermes_run_id: "h1",
  request_id: "req_1",
  command: "ls",
  description: "list",
  choices: ["once"],
  choice: null
}

const failureTag = <A, E>(exit: Exit.Exit<A, E>): string =>
  Exit.match(exit, {
    onSuccess: () => "success",
    onFailure: (cause) => {
      const failure = Cause.failureOption(cause)
      return failure._tag === "Some" ? String((failure.value as { _tag?: unknown })._tag) : Cause.isDie(cause) ? "defect" : "other"
    }
  })

const inboxLayer = InboxStoreLive.pipe(Layer.provideMerge(InboxChangesLive), Layer.provideMerge(TestDb), Layer.provide(AppConfigLive(testConfig())))

describe("inbox rows that do not decode are bridge.internal, with an incident", () => {
  it.effect("a payload that is not JSON, one of the wrong shape, and an integer time column holding text", () =>
    Effect.gen(function* () {
      const store = yield* InboxStore
      const sql = yield* SqlClient.SqlClient
      yield* store.insert(approval)
      expect((yield* store.list()).map((r) => r.id)).toEqual(["apr_1"])

      yield* sql`UPDATE inbox SET payload = '{"agent":' WHERE id = 'apr_1'`
      const broken = yield* Effect.flip(store.get("apr_1"))
      expect(broken._tag).toBe("Internal")
      expect(broken.message).toMatch(/incident inc_[0-9a-f]{16}/)

      yield* sql`UPDATE inbox SET payload = '{"agent":"hermes","choices":"once"}' WHERE id = 'apr_1'`
      expect((yield* Effect.flip(store.pendingRunApprovals("run_1")))._tag).toBe("Internal")
      // Closing it records the choice in the payload: that read fails the same way, and nothing closes.
      expect((yield* Effect.flip(store.close("apr_1", { state: "approved", at: "2026-05-01T12:00:01.000Z", by: "admin", choice: "once" })))._tag).toBe("Internal")
      expect((yield* sql<{ state: string }>`SELECT state FROM inbox WHERE id = 'apr_1'`)[0]!.state).toBe("pending")

      yield* sql`UPDATE inbox SET payload = ${JSON.stringify({ agent: "hermes", hermes_run_id: "h1", command: "ls", description: "list", choices: ["once"], choice: null })},
        created_at = 'yesterday' WHERE id = 'apr_1'`
      expect((yield* Effect.flip(store.list()))._tag).toBe("Internal")
    }).pipe(Effect.provide(inboxLayer)))

  it.effect("a time that is no ISO text is refused before it is written", () =>
    Effect.gen(function* () {
      const store = yield* InboxStore
      expect((yield* Effect.flip(store.insert({ ...approval, created_at: "soon" })))._tag).toBe("Internal")
      expect((yield* Effect.flip(store.deleteHistory("never")))._tag).toBe("Internal")
      expect(yield* store.list()).toEqual([])
    }).pipe(Effect.provide(inboxLayer)))
})

describe("memory notes that do not decode are MemoryFailed", () => {
  it.effect("tags that are not a JSON array of strings fail list, get and search", () =>
    Effect.gen(function* () {
      const memory = yield* MemoryStore
      const sql = yield* SqlClient.SqlClient
      const note = yield* memory.add({ namespace: "shared", text: "the build uses pnpm", tags: ["tooling"], client: "alice" })
      expect(note.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      yield* sql`UPDATE memory_notes SET tags = '{"tooling": true}' WHERE id = ${note.id}`
      expect((yield* Effect.flip(memory.list({ namespaces: ["shared"], limit: 5, offset: 0 })))._tag).toBe("MemoryFailed")
      expect((yield* Effect.flip(memory.get(note.id)))._tag).toBe("MemoryFailed")
      expect((yield* Effect.flip(memory.search({ namespaces: ["shared"], query: "pnpm", limit: 5 })))._tag).toBe("MemoryFailed")
    }).pipe(Effect.provide(MemoryStoreLive), Effect.provide(TestDb)))
})

describe("identity rows that do not decode are defects, console rows ParseErrors, as their SQL errors are handled", () => {
  it.effect("a client row with text in a time column, a run summary with a status no run has, a stop request from nowhere", () =>
    Effect.gen(function* () {
      const auth = yield* Auth
      const sql = yield* SqlClient.SqlClient
      const { client } = yield* auth.addClient("alice", ["agents"])
      expect(client.created_at).toMatch(/Z$/)
      // PostgreSQL's BIGINT refuses text: there the spoilt time is one past 2^53 (it arrives as digits).
      yield* sql.onDialectOrElse({
        pg: () => sql`UPDATE clients SET created_at = 9007199254740993 WHERE name = 'alice'`,
        orElse: () => sql`UPDATE clients SET created_at = 'long ago' WHERE name = 'alice'`
      })
      expect(failureTag(yield* Effect.exit(auth.listClients))).toBe("defect")

      const queries = yield* makeConsoleQueries
      yield* sql`INSERT INTO runs (run_id, client, agent, profile, hermes_run_id, status, input, fingerprint, created_at, updated_at)
        VALUES ('run_x', 'alice', 'hermes', 'default', 'h', 'exploded', 'in', 'fp', 0, 0)`
      // The run's summary comes from the ledger: its own error, over the row's ParseError.
      const summary = yield* Effect.flip(queries.run("run_x"))
      expect(summary._tag).toBe("LedgerError")
      expect((summary as { cause?: { _tag?: unknown } }).cause?._tag).toBe("ParseError")
      expect(failureTag(yield* Effect.exit(queries.clients(0)))).toBe("ParseError")

      const stops = yield* makeStopRequests
      yield* sql`INSERT INTO run_stop_requests (run_id, requested_by, via, requested_at) VALUES ('run_x', 'operator', 'carrier pigeon', 1)`
      expect(failureTag(yield* Effect.exit(stops.pending))).toBe("ParseError")
    }).pipe(Effect.provide(AuthLive), Effect.provide(Layer.mergeAll(LedgerLive, StopRequestsLive, ClientsLive)), Effect.provide(RedactorLive), Effect.provide(ChangeFeedTest), Effect.provide(AppConfigLive(testConfig())), Effect.provide(TestDb)))
})
