/**
 * Migration 0007 on a database the earlier migrations made, holding ISO text times as the bridge
 * wrote them: every time becomes the same instant in epoch milliseconds, exactly; rowids, the memory
 * index and the constraints survive; the file keeps no free pages; and the stores read the rows
 * back with the ISO text they showed before, in the same order, with retention by `decided_at`
 * still deleting the right rows. A time that does not parse stops the migration, named.
 */
import { SqlClient } from "@effect/sql"
import { SqliteClient, SqliteMigrator } from "@effect/sql-sqlite-node"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Option } from "effect"
import * as path from "node:path"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { RedactorLive } from "../../src/common/Redactor.ts"
import { Auth, AuthLive } from "../../src/services/auth/Auth.ts"
import { ChangeFeedTest } from "../../src/storage/ChangeFeed.ts"
import { InboxChangesLive } from "../../src/services/inbox/InboxChanges.ts"
import { InboxStore, InboxStoreLive } from "../../src/services/inbox/InboxStore.ts"
import { MemoryStore } from "../../src/services/memory/MemoryStore.ts"
import { MemoryStoreLive } from "../../src/services/memory/MemoryStoreLive.ts"
import { migrations } from "../../src/storage/migrations/index.ts"
import { tempDir, testConfig } from "../support/daemon.ts"

const BEFORE = Object.fromEntries(Object.entries(migrations).filter(([k]) => k < "0007"))

const migrate = (record: typeof migrations) =>
  SqliteMigrator.run({ loader: SqliteMigrator.fromRecord(record) }).pipe(Effect.provide(NodeContext.layer))

const times = [
  "2026-05-01T12:00:00.000Z",
  "2026-05-01T12:00:00.001Z",
  "2026-05-01T12:00:00.999Z",
  "1999-12-31T23:59:59.123Z",
  "2038-01-19T03:14:07.654Z"
]

/** The rows of an older bridge, written with the old columns (ISO text), rowids in insert order. */
const seedOldRows = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const card = { name: "s", preview: "---\nname: s\n---\n", preview_truncated: false, files: {}, bytes: 16, digest: "d" }
  // Inserted out of time order: the order the store shows is by time, then rowid.
  yield* sql`INSERT INTO inbox (id, kind, client, state, created_at, decided_at, decided_by, name, content_key, run_id, request_id, payload) VALUES
    ('apr_b', 'skill_put', 'alice', 'approved', ${times[1]!}, ${times[2]!}, 'admin', 's', 'put:d', NULL, NULL, ${JSON.stringify({ card })}),
    ('apr_a', 'skill_delete', 'alice', 'denied', ${times[0]!}, ${times[3]!}, 'admin', 's', 'delete', NULL, NULL, '{}'),
    ('apr_c', 'run_approval', 'bob', 'pending', ${times[1]!}, NULL, NULL, NULL, NULL, 'run_1', 'req_1',
      ${JSON.stringify({ agent: "hermes", hermes_run_id: "h1", command: "ls", description: "list", choices: ["once"], choice: null })}),
    ('apr_d', 'skill_delete', 'bob', 'expired', ${times[4]!}, ${times[4]!}, NULL, 't', 'delete', NULL, NULL, '{}')`
  yield* sql`INSERT INTO memory_notes (seq, id, namespace, text, tags, client, created_at) VALUES
    (7, 'mem_1', 'shared', 'the build uses pnpm', '["tooling"]', 'alice', ${times[2]!}),
    (9, 'mem_2', 'shared', 'deploys go out on tuesdays', '[]', 'bob', ${times[3]!})`
  yield* sql`INSERT INTO memory_fts (rowid, text, tags) VALUES (7, 'the build uses pnpm', 'tooling'), (9, 'deploys go out on tuesdays', '')`
  yield* sql`INSERT INTO clients (name, key_digest, scopes, created_at, last_used_at, revoked_at) VALUES
    ('alice', 'digest-a', 'agents,memory', ${times[0]!}, ${times[2]!}, NULL),
    ('bob', 'digest-b', 'agents', ${times[3]!}, NULL, ${times[4]!})`
})

const dbAt = (file: string) => SqliteClient.layer({ filename: file })

describe("migration 0007: times as epoch milliseconds", () => {
  it.effect("rewrites every ISO time exactly, keeps rowids, constraints and the memory index, and leaves no free pages", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* migrate(BEFORE)
      yield* seedOldRows
      const rowidsBefore = yield* sql<{ id: string; rowid: number }>`SELECT id, rowid FROM inbox ORDER BY rowid`
      yield* migrate(migrations)

      const inbox = yield* sql<{ id: string; rowid: number; c: number; d: number | null; tc: string; td: string }>`
        SELECT id, rowid, created_at AS c, decided_at AS d, typeof(created_at) AS tc, typeof(decided_at) AS td FROM inbox ORDER BY rowid`
      expect(inbox.map((r) => [r.id, r.rowid])).toEqual(rowidsBefore.map((r) => [r.id, r.rowid]))
      expect(inbox.map((r) => [r.id, r.c, r.d])).toEqual([
        ["apr_b", Date.parse(times[1]!), Date.parse(times[2]!)],
        ["apr_a", Date.parse(times[0]!), Date.parse(times[3]!)],
        ["apr_c", Date.parse(times[1]!), null],
        ["apr_d", Date.parse(times[4]!), Date.parse(times[4]!)]
      ])
      expect(new Set(inbox.map((r) => r.tc))).toEqual(new Set(["integer"]))
      expect(new Set(inbox.map((r) => r.td))).toEqual(new Set(["integer", "null"]))

      const notes = yield* sql<{ seq: number; c: number }>`SELECT seq, created_at AS c FROM memory_notes ORDER BY seq`
      expect(notes).toEqual([{ seq: 7, c: Date.parse(times[2]!) }, { seq: 9, c: Date.parse(times[3]!) }])
      const clients = yield* sql<{ name: string; c: number; u: number | null; r: number | null }>`
        SELECT name, created_at AS c, last_used_at AS u, revoked_at AS r FROM clients ORDER BY name`
      expect(clients).toEqual([
        { name: "alice", c: Date.parse(times[0]!), u: Date.parse(times[2]!), r: null },
        { name: "bob", c: Date.parse(times[3]!), u: null, r: Date.parse(times[4]!) }
      ])

      // The constraints came along: a state no row has, a second client with one digest.
      expect(Exit.isFailure(yield* Effect.exit(sql`UPDATE inbox SET state = 'lost' WHERE id = 'apr_a'`))).toBe(true)
      expect(Exit.isFailure(yield* Effect.exit(sql`INSERT INTO clients (name, key_digest, scopes, created_at) VALUES ('carol', 'digest-a', 'agents', 0)`))).toBe(true)
      expect(Exit.isFailure(yield* Effect.exit(sql`INSERT INTO inbox (id, kind, client, state, created_at, run_id, request_id, payload)
        VALUES ('apr_e', 'run_approval', 'bob', 'pending', 0, 'run_1', 'req_1', '{}')`))).toBe(true)
      const indexes = yield* sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%' AND tbl_name IN ('inbox', 'memory_notes', 'clients') ORDER BY name`
      expect(indexes.map((i) => i.name)).toEqual([
        "inbox_closed_decided_at", "inbox_pending_client", "inbox_pending_skill", "inbox_run_request", "inbox_state_created",
        // Migration 0014 (per-client quotas), run after 0007 here.
        "memory_notes_client", "memory_notes_namespace"
      ])
      expect((yield* sql<{ freelist_count: number }>`PRAGMA freelist_count`)[0]!.freelist_count).toBe(0)
      expect((yield* sql<{ n: number }>`SELECT count(*) AS n FROM temp.sqlite_master`)[0]!.n).toBe(0)
    }).pipe(Effect.provide(dbAt(path.join(tempDir(), "bridge.db")))))

  it.effect("the stores read the migrated rows with the ISO times they showed before, in the same order; retention and search still work", () =>
    Effect.gen(function* () {
      yield* migrate(BEFORE)
      yield* seedOldRows
      yield* migrate(migrations)
      yield* Effect.gen(function* () {
        const store = yield* InboxStore
        const listed = yield* store.list()
        // Newest first by created_at, then by rowid: apr_d (2038), apr_c and apr_b share a time (apr_c inserted later), apr_a.
        expect(listed.map((r) => [r.id, r.created_at, r.decided_at])).toEqual([
          ["apr_d", times[4], times[4]],
          ["apr_c", times[1], null],
          ["apr_b", times[1], times[2]],
          ["apr_a", times[0], times[3]]
        ])
        const put = Option.getOrThrow(yield* store.get("apr_b"))
        expect(put.kind === "skill_put" ? put.card.digest : "").toBe("d")
        expect((yield* store.pendingRunApprovals("run_1")).map((r) => r.id)).toEqual(["apr_c"])
        // Retention by decided_at: only rows closed before the cutoff; the pending row never.
        expect(yield* store.deleteHistory("2026-05-01T12:00:00.999Z")).toBe(1) // apr_a (1999)
        expect(yield* store.deleteHistory("2026-05-01T12:00:01.000Z")).toBe(1) // apr_b (…00.999)
        expect((yield* store.list()).map((r) => r.id)).toEqual(["apr_d", "apr_c"])
        // A close writes the time as an integer like the migrated ones.
        expect(yield* store.close("apr_c", { state: "approved", at: "2026-06-01T00:00:00.250Z", by: "admin", choice: "once" })).toBe(true)
        const closed = Option.getOrThrow(yield* store.get("apr_c"))
        expect([closed.decided_at, closed.kind === "run_approval" ? closed.choice : ""]).toEqual(["2026-06-01T00:00:00.250Z", "once"])
      }).pipe(Effect.provide(InboxStoreLive), Effect.provide(InboxChangesLive), Effect.provide(AppConfigLive(testConfig())))

      yield* Effect.gen(function* () {
        const memory = yield* MemoryStore
        const found = yield* memory.search({ namespaces: ["shared"], query: "pnpm", limit: 5 })
        expect(found.map((n) => [n.id, n.created_at, n.tags])).toEqual([["mem_1", times[2], ["tooling"]]])
        expect((yield* memory.list({ namespaces: ["shared"], limit: 5, offset: 0 })).map((n) => [n.id, n.created_at])).toEqual([
          ["mem_2", times[3]], ["mem_1", times[2]]
        ])
        expect(yield* memory.remove("mem_2")).toBe(true)
        expect(yield* memory.search({ namespaces: ["shared"], query: "tuesdays", limit: 5 })).toEqual([])
      }).pipe(Effect.provide(MemoryStoreLive))

      yield* Effect.gen(function* () {
        const auth = yield* Auth
        expect(yield* auth.listClients).toEqual([
          { name: "alice", scopes: ["agents", "memory"], created_at: times[0], last_used_at: times[2], revoked_at: null },
          { name: "bob", scopes: ["agents"], created_at: times[3], last_used_at: null, revoked_at: times[4] }
        ])
      }).pipe(Effect.provide(AuthLive), Effect.provide(RedactorLive), Effect.provide(ChangeFeedTest), Effect.provide(AppConfigLive(testConfig())))
    }).pipe(Effect.provide(dbAt(path.join(tempDir(), "bridge.db")))))

  it.effect("a time that does not parse stops the migration, naming the table, the row and the value; nothing is half-converted", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* migrate(BEFORE)
      yield* seedOldRows
      yield* sql`UPDATE memory_notes SET created_at = 'last tuesday' WHERE id = 'mem_2'`
      const exit = yield* Effect.exit(migrate(migrations))
      expect(Exit.isFailure(exit)).toBe(true)
      const text = Exit.isFailure(exit) ? JSON.stringify(exit.cause) + String((exit.cause as { defect?: { cause?: unknown } }).defect?.cause) : ""
      expect(text).toContain("memory_notes.created_at of id 'mem_2' is no time: 'last tuesday'")
      // The whole run is one transaction: the inbox (converted before the notes) is as it was.
      expect((yield* sql<{ t: string }>`SELECT typeof(created_at) AS t FROM inbox LIMIT 1`)[0]!.t).toBe("text")
      expect((yield* sql<{ n: number }>`SELECT count(*) AS n FROM effect_sql_migrations WHERE migration_id = 7`)[0]!.n).toBe(0)
    }).pipe(Effect.provide(dbAt(path.join(tempDir(), "bridge.db")))))
})
