/**
 * The stores take the time from Effect's Clock, so a TestClock sets it: what a note, a client and
 * an inbox row record is the TestClock's instant, stored as epoch milliseconds and shown as ISO text.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { RedactorLive } from "../../src/common/Redactor.ts"
import { Auth, AuthLive } from "../../src/services/auth/Auth.ts"
import { ChangeFeedTest } from "../../src/storage/ChangeFeed.ts"
import { MemoryStore } from "../../src/services/memory/MemoryStore.ts"
import { MemoryStoreLive } from "../../src/services/memory/MemoryStoreLive.ts"
import { TestDb } from "../support/testDb.ts"
import { testConfig } from "../support/daemon.ts"

const AT = Date.parse("2031-02-03T04:05:06.789Z")

const layer = Layer.mergeAll(MemoryStoreLive, AuthLive).pipe(
  Layer.provideMerge(TestDb),
  Layer.provide(RedactorLive),
  Layer.provide(ChangeFeedTest),
  Layer.provide(AppConfigLive(testConfig()))
)

describe("times from Effect's Clock", () => {
  it.effect("a note and a client record the TestClock's instant; revoking and using a key later record later instants", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(AT)
      const sql = yield* SqlClient.SqlClient
      const note = yield* (yield* MemoryStore).add({ namespace: "shared", text: "x", tags: [], client: "alice" })
      expect(note.created_at).toBe("2031-02-03T04:05:06.789Z")
      expect((yield* sql<{ c: number }>`SELECT created_at AS c FROM memory_notes`)[0]!.c).toBe(AT)

      const auth = yield* Auth
      const { key, client } = yield* auth.addClient("alice", ["agents"])
      expect(client.created_at).toBe("2031-02-03T04:05:06.789Z")
      yield* TestClock.adjust("2 minutes")
      yield* auth.authenticate(key)
      yield* TestClock.adjust("1 minute")
      const revoked = yield* auth.revoke("alice")
      expect(revoked.revoked_at).toBe("2031-02-03T04:08:06.789Z")
      expect((yield* auth.listClients)[0]).toMatchObject({
        created_at: "2031-02-03T04:05:06.789Z",
        last_used_at: "2031-02-03T04:07:06.789Z",
        revoked_at: "2031-02-03T04:08:06.789Z"
      })
      expect((yield* sql<{ r: number }>`SELECT revoked_at AS r FROM clients`)[0]!.r).toBe(AT + 180_000)
    }).pipe(Effect.provide(layer)))
})
