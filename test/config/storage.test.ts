/**
 * The `storage` section (issue 24 item 2): no URL is the SQLite file in data_dir; a PostgreSQL URL
 * from the file or AGENT_BRIDGE_STORAGE_URL, taken as it is and kept Redacted; the pool and the
 * statement timeout with their defaults and bounds; a refused URL named, never quoted.
 */
import { Either, Redacted } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { loadConfig } from "../../src/config/load.ts"
import { pgServerName, pgUrlProblem } from "../../src/config/storageUrl.ts"
import { tempDir } from "../support/daemon.ts"

const messageOf = (res: ReturnType<typeof loadConfig>): string => (Either.isLeft(res) ? res.left.message : "")
const fromEnv = (env: Record<string, string>) => loadConfig({ env, cwd: tempDir() })
const fromFile = (yaml: string) => {
  const file = path.join(tempDir("agent-bridge-config-"), "agent-bridge.yaml")
  fs.writeFileSync(file, yaml)
  return loadConfig({ configPath: file, env: {} })
}

describe("storage configuration", () => {
  it("defaults: no URL (the SQLite file in data_dir), a pool of 10, a 5 s statement timeout", () => {
    const cfg = Either.getOrThrow(fromEnv({}))
    expect(cfg.storage.url).toBeUndefined()
    expect(cfg.storage.pool_max).toBe(10)
    expect(cfg.storage.statement_timeout_ms).toBe(5000)
  })

  it("takes a PostgreSQL URL from the file, Redacted", () => {
    const cfg = Either.getOrThrow(fromFile("storage: {url: 'postgresql://bridge:s3cret-pw@db.lan:6543/bridge', pool_max: 4, statement_timeout_ms: 250}\n"))
    expect(Redacted.isRedacted(cfg.storage.url)).toBe(true)
    expect(Redacted.value(cfg.storage.url!)).toBe("postgresql://bridge:s3cret-pw@db.lan:6543/bridge")
    expect(String(cfg.storage.url)).not.toContain("s3cret-pw")
    expect(JSON.stringify(cfg)).not.toContain("s3cret-pw")
    expect(cfg.storage.pool_max).toBe(4)
    expect(cfg.storage.statement_timeout_ms).toBe(250)
  })

  it("takes AGENT_BRIDGE_STORAGE_URL as it is (a comma is no list)", () => {
    const url = "postgres://bridge:p,w%23x%20y@127.0.0.1:5432/db?sslmode=disable"
    const cfg = Either.getOrThrow(fromEnv({ AGENT_BRIDGE_STORAGE_URL: url, AGENT_BRIDGE_STORAGE_POOL_MAX: "3" }))
    expect(Redacted.value(cfg.storage.url!)).toBe(url)
    expect(cfg.storage.pool_max).toBe(3)
  })

  it("refuses a URL that is not PostgreSQL's, naming the key and never quoting the URL", () => {
    for (const url of ["mysql://root:hunter2-pw@db/x", "not a url hunter2-pw", "postgres://u:hunter2-pw@/db", "postgres://u:hunter2-pw@h/a/b"]) {
      for (const res of [fromEnv({ AGENT_BRIDGE_STORAGE_URL: url }), fromFile(`storage: {url: ${JSON.stringify(url)}}\n`)]) {
        const message = messageOf(res)
        expect(message).toContain("storage.url")
        expect(message).toMatch(/postgres:\/\//)
        expect(message).not.toContain("hunter2-pw")
      }
    }
    expect(messageOf(fromFile("storage: {url: 12345678}\n"))).not.toContain("12345678")
  })

  it("refuses a pool or timeout out of bounds, naming the key and the bounds", () => {
    expect(messageOf(fromEnv({ AGENT_BRIDGE_STORAGE_POOL_MAX: "0" }))).toMatch(/storage\.pool_max: .*between 1 and 1000/)
    expect(messageOf(fromEnv({ AGENT_BRIDGE_STORAGE_POOL_MAX: "2.5" }))).toMatch(/storage\.pool_max: .*integer/)
    expect(messageOf(fromEnv({ AGENT_BRIDGE_STORAGE_STATEMENT_TIMEOUT_MS: "50" }))).toMatch(/storage\.statement_timeout_ms: .*between 100 and 3600000/)
    expect(messageOf(fromFile("storage: {statement_timeout_ms: soon}\n"))).toMatch(/storage\.statement_timeout_ms/)
    expect(messageOf(fromFile("storage: {path: /x}\n"))).toMatch(/storage\.path/)
  })

  it("names a server as host:port/db, without user, password or parameters", () => {
    expect(pgServerName("postgres://bridge:pw@db.lan:6543/ledger?sslmode=require")).toBe("db.lan:6543/ledger")
    expect(pgServerName("postgresql://bridge@db.lan")).toBe("db.lan:5432/bridge")
    expect(pgServerName("postgres://:pw@127.0.0.1/")).toBe("127.0.0.1:5432/(default database)")
    expect(pgServerName("postgres:///ledger?host=/run/postgresql")).toBe("/run/postgresql:5432/ledger")
    expect(pgUrlProblem("postgres:///ledger?host=/run/postgresql")).toBeUndefined()
    expect(pgServerName("::")).not.toContain("::")
  })
})
