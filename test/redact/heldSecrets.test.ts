/**
 * Every secret the bridge holds by its configuration is masked by value (issue 37 item 7): the
 * PostgreSQL password of `storage.url` (a `.pgpass` line, `psql -W <pw>`, the bare value), the
 * admin key, the metrics token, the Hermes keys, in the daemon's Redactor and in the CLI's, and
 * `agent-bridge runs show` masks the admin key set in the config (before, the CLI's Redactor had
 * nothing registered and showed it). On PostgreSQL the run lives in the test's database, reached
 * with a URL that carries a password (the test server trusts every connection, so it is accepted
 * and ignored).
 */
import { describe, expect, it } from "vitest"
import { Console, Effect, Layer, LogLevel, Option, Redacted } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { heldSecrets, pgUrlSecrets, RedactorForConfig } from "../../src/daemon/heldSecrets.ts"
import { Redactor, RedactorLive } from "../../src/common/Redactor.ts"
import { loggingLayer } from "../../src/daemon/logging.ts"
import { parseArgs } from "../../src/cli/args.ts"
import { runsCommand } from "../../src/cli/runs.ts"
import { runsLayer } from "../../src/cli/runsRuntime.ts"
import type { ResolvedConfig } from "../../src/config/load.ts"
import { MASK } from "../../src/domain/redact/redact.ts"
import { Ledger } from "../../src/services/runs/Ledger.ts"
import { servicesLayer } from "../../src/daemon/Daemon.ts"
import { HermesClientTest } from "../../src/hermes/client/HermesClientTest.ts"
import { testConfig } from "../support/daemon.ts"
import { newRun } from "../support/records.ts"
import { pgDatabaseFor, TEST_DIALECT } from "../support/testDb.ts"

const PG_PASSWORD = "pg-S3cr3t-w0rd!x"
const ADMIN_KEY = "admin-Kq83hZ0pLw5xV2nR7tY4"
const METRICS_TOKEN = "metrics-Zt6Yp1Qm8Wn3Lk0Rs5"
const HERMES_KEY = "hermes-Ua2Sd7Fg4Hj9Kl1Zx6"

const withPassword = (url: string, password: string): string => {
  const u = new URL(url)
  u.password = encodeURIComponent(password)
  return u.toString()
}

/** A config holding each secret (on PostgreSQL, its database reached with a password). */
const secretConfig = async (): Promise<ResolvedConfig> => {
  const config = testConfig({
    bridge: { admin_key: ADMIN_KEY, metrics_token: METRICS_TOKEN },
    hermes: { url: "http://127.0.0.1:9", key: HERMES_KEY }
  })
  const url = TEST_DIALECT === "pg" ? await pgDatabaseFor(config.dataDir) : `postgres://bridge:x@127.0.0.1:9/unused`
  return { ...config, storage: { ...config.storage, url: Redacted.make(withPassword(url, PG_PASSWORD)) } }
}

/** The same without `storage.url` on SQLite (the CLI then opens the data dir's file). */
const storedConfig = async (): Promise<ResolvedConfig> => {
  const config = await secretConfig()
  return TEST_DIALECT === "pg" ? config : { ...config, storage: { ...config.storage, url: undefined } }
}

const LEAKS = [
  `db.internal:5432:orders:app:${PG_PASSWORD}`,
  `psql -h db.internal -U app -W ${PG_PASSWORD} orders`,
  PG_PASSWORD,
  `the admin key is ${ADMIN_KEY}`,
  `curl -H 'Authorization: Bearer ${METRICS_TOKEN}' /metrics`,
  `key was ${HERMES_KEY}.`
]
const SECRETS = [PG_PASSWORD, ADMIN_KEY, METRICS_TOKEN, HERMES_KEY]

describe("the secrets the config holds", () => {
  it("are the Redacted values, storage.url as its password", async () => {
    const config = await secretConfig()
    expect([...heldSecrets(config)].sort()).toEqual(expect.arrayContaining([PG_PASSWORD, ADMIN_KEY, METRICS_TOKEN, HERMES_KEY]))
    expect(heldSecrets(config).some((s) => s.startsWith("postgres"))).toBe(false)
    expect(pgUrlSecrets("postgres://u:p%40ss%3Aw0rd@h/db")).toEqual(["p%40ss%3Aw0rd", "p@ss:w0rd"])
    expect(pgUrlSecrets("postgresql://u@h/db?sslmode=require&password=qu3ry-pw&sslpassword=k3y-pw")).toEqual(["qu3ry-pw", "k3y-pw"])
    expect(pgUrlSecrets("postgres://u@h/db")).toEqual([])
  })

  it("are masked by the Redactor the daemon and the CLI build from the config", async () => {
    const config = await secretConfig()
    const out = await Effect.runPromise(
      Effect.map(Redactor, (r) => LEAKS.map((s) => r.text(s))).pipe(Effect.provide(RedactorForConfig(config)))
    )
    for (const line of out) for (const s of SECRETS) expect(line).not.toContain(s)
    expect(out[0]).toBe(`db.internal:5432:orders:app:${MASK}`)
    expect(out[1]).toBe(`psql -h db.internal -U app -W ${MASK} orders`)
  })

  it("the admin key in <data_dir>/admin.key is registered when the config sets none", async () => {
    const config = testConfig()
    fs.mkdirSync(config.dataDir, { recursive: true })
    fs.writeFileSync(path.join(config.dataDir, "admin.key"), `${ADMIN_KEY}\n`)
    const out = await Effect.runPromise(Effect.map(Redactor, (r) => r.text(`key ${ADMIN_KEY}`)).pipe(Effect.provide(RedactorForConfig(config))))
    expect(out).toBe(`key ${MASK}`)
  })

  it("the daemon's log masks them: its logger shares the Redactor they are registered on (as serve builds it)", async () => {
    const config = await secretConfig()
    const lines: Array<string> = []
    const base = Effect.runSync(Console.consoleWith(Effect.succeed))
    const push = (...args: ReadonlyArray<unknown>) => void lines.push(args.map(String).join(" "))
    const kept: Console.Console = { ...base, error: (...args) => Effect.sync(() => push(...args)), unsafe: { ...base.unsafe, error: push } }
    const app = Layer.effectDiscard(Effect.logWarning(`connecting with ${PG_PASSWORD} as ${ADMIN_KEY}`)).pipe(Layer.provideMerge(RedactorForConfig(config)))
    const logging = loggingLayer(LogLevel.Info, "text").pipe(Layer.provide(RedactorLive))
    await Effect.runPromise(Effect.scoped(Layer.build(app.pipe(Layer.provide(logging)))).pipe(Effect.withConsole(kept)))
    expect(lines.join("\n")).toContain(`connecting with ${MASK} as ${MASK}`)
  })

  it("the daemon's services mask them", async () => {
    const config = await storedConfig()
    const out = await Effect.runPromise(
      Effect.map(Redactor, (r) => LEAKS.map((s) => r.text(s))).pipe(
        Effect.provide(servicesLayer(config, { hermes: HermesClientTest() as never })),
        Effect.scoped
      )
    )
    for (const line of out) for (const s of TEST_DIALECT === "pg" ? SECRETS : [ADMIN_KEY, METRICS_TOKEN, HERMES_KEY]) expect(line).not.toContain(s)
  }, 60_000)
})

describe("agent-bridge runs show", () => {
  it("masks the admin key set in the config, and the database password", async () => {
    const config = await storedConfig()
    const layer = runsLayer(config)
    const id = "run_heldsecrets1"
    const shown = await Effect.runPromise(
      Effect.gen(function* () {
        const ledger = yield* Ledger
        yield* ledger.insert(newRun(id, { input: `use ${ADMIN_KEY}` }))
        yield* ledger.modify(id, () => ({
          change: {
            status: "completed",
            events: [{ type: "message.text", data: { text: `admin ${ADMIN_KEY} pg ${PG_PASSWORD}` } }],
            outputAppend: `the admin key: ${ADMIN_KEY}\n.pgpass: db:5432:orders:app:${PG_PASSWORD}\n`
          },
          result: undefined
        }))
        const text = yield* runsCommand(parseArgs(["runs", "show", id, "--events"]))
        const json = yield* runsCommand(parseArgs(["runs", "show", id, "--events", "--json"]))
        expect(Option.isSome(yield* ledger.get(id))).toBe(true)
        return [text, json]
      }).pipe(Effect.provide(layer), Effect.scoped)
    )
    for (const out of shown) {
      expect(out).not.toContain(ADMIN_KEY)
      if (TEST_DIALECT === "pg") expect(out).not.toContain(PG_PASSWORD)
      expect(out).toContain(MASK)
    }
  }, 60_000)
})
