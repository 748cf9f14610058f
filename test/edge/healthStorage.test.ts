/**
 * `/healthz` reports storage the bridge cannot write: a database at its page limit (SQLite's own
 * `max_page_count`, a real "disk full" for SQLite), and a data folder root cannot write (made
 * immutable with `chattr +i`, which stops root as a read-only mount does).
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll } from "vitest"
import { TestDb } from "../support/testDb.ts"
import { databaseRoom, folderState } from "../../src/storage/probe.ts"
import { startDaemon, testConfig, type TestDaemon } from "../support/daemon.ts"
import { HermesClientTest } from "../../src/hermes/client/HermesClientTest.ts"

const chattr = (flag: "+i" | "-i", target: string) => execFileSync("chattr", [flag, target], { stdio: "ignore" })
const immutableWorks = (() => {
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), "immutable-probe-"))
  try {
    chattr("+i", probe)
    chattr("-i", probe)
    return true
  } catch {
    return false
  } finally {
    fs.rmSync(probe, { recursive: true, force: true })
  }
})()

describe("storage probe", () => {
  it.effect("a database at its page limit with no free page is full; with room it is ok", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      expect(yield* databaseRoom(sql)).toBe("ok")
      const pages = (yield* sql<{ page_count: number }>`PRAGMA page_count`)[0]!.page_count
      yield* sql.unsafe(`PRAGMA max_page_count = ${pages}`)
      expect(yield* databaseRoom(sql)).toBe("full")
      yield* sql.unsafe("PRAGMA max_page_count = 1073741823")
      expect(yield* databaseRoom(sql)).toBe("ok")
    }).pipe(Effect.provide(TestDb), Effect.orDie))

  it.effect("a folder not made yet is ok (it is made when needed)", () =>
    Effect.gen(function* () {
      expect(yield* folderState(path.join(os.tmpdir(), "agent-bridge-no-such-folder", "skills"))).toBe("ok")
      expect(yield* folderState(os.tmpdir())).toBe("ok")
    }))
})

describe.skipIf(!immutableWorks)("/healthz over a data folder the bridge cannot write", () => {
  let daemon: TestDaemon
  beforeAll(async () => {
    daemon = await startDaemon(testConfig(), HermesClientTest())
  })
  afterAll(async () => daemon?.close())

  it("says storage ok, then read_only naming the folder (degraded, still ready), then ok again", async () => {
    const health = async () => {
      const res = await fetch(`${daemon.url}/healthz`, { headers: { authorization: `Bearer ${daemon.adminKey}` } })
      return { status: res.status, body: (await res.json()) as Record<string, unknown> }
    }
    expect((await health()).body).toMatchObject({ status: "ok", ledger: "ok", storage: "ok" })
    chattr("+i", daemon.config.dataDir)
    try {
      const degraded = await health()
      expect(degraded.status).toBe(200)
      expect(degraded.body).toMatchObject({
        status: "degraded", ready: true, ledger: "read_only", storage: "read_only",
        storage_problems: [{ path: daemon.config.dataDir, state: "read_only" }]
      })
    } finally {
      chattr("-i", daemon.config.dataDir)
    }
    expect((await health()).body).toMatchObject({ status: "ok", storage: "ok" })
  })
})
