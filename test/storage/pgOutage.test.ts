/**
 * PostgreSQL going away under a running daemon's stores, on a server of this file's own
 * (`usePostgres`): while it is stopped (`pg_ctl stop -m fast`, as an operator's restart) the pool's
 * statements fail as `unavailable` storage faults and the health probe answers false within its
 * bound; started again on the same port and data folder, the same pool answers again and the change
 * feed listens again by itself, reporting a change on every topic. A statement that runs past
 * `storage.statement_timeout_ms` is cancelled by the server and told apart as `timeout` (57014).
 * A key checked while the server is stopped is `bridge.store_unavailable` (503, retry), not a
 * defect that the edge would answer as a 500; checked again after the start, it authenticates.
 */
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer, ManagedRuntime, Queue, Redacted, Schedule, Scope, Stream } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { type Change, ChangeFeed, TOPICS } from "../../src/storage/ChangeFeed.ts"
import { ChangeFeedLive } from "../../src/storage/ChangeFeedLive.ts"
import { DbPostgres } from "../../src/storage/Db.ts"
import { storageFaultOf } from "../../src/storage/faults.ts"
import { databaseAnswers } from "../../src/storage/probe.ts"
import { RedactorLive } from "../../src/common/Redactor.ts"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { Auth, AuthLive } from "../../src/services/auth/Auth.ts"
import { testConfig } from "../support/daemon.ts"
import { usePostgres } from "../support/postgres.ts"

const pg = usePostgres()
const runtimes: Array<ManagedRuntime.ManagedRuntime<unknown, unknown>> = []
afterAll(async () => {
  for (const rt of runtimes) await rt.dispose().catch(() => undefined)
}, 60_000)

const storesOn = (url: string, statementTimeoutMs = 30_000) => {
  const rt = ManagedRuntime.make(
    ChangeFeedLive.pipe(Layer.provideMerge(DbPostgres({ url: Redacted.make(url), pool_max: 2, statement_timeout_ms: statementTimeoutMs }).pipe(Layer.orDie)))
  )
  runtimes.push(rt as ManagedRuntime.ManagedRuntime<unknown, unknown>)
  return rt
}

/** What a statement's failure is as a storage fault ("none" when it succeeded). */
const faultOf = (effect: Effect.Effect<unknown, unknown>) =>
  effect.pipe(
    Effect.as("none"),
    Effect.catchAll((e) => Effect.succeed(storageFaultOf(e)?.kind ?? `no fault: ${String(e)}`))
  )

describe("PostgreSQL stopped and started under the stores", () => {
  it("statements fail as unavailable, the probe says so in bounded time; after the start both answer and the feed reports every topic", async (ctx) => {
    const server = pg.server(ctx)
    const rt = storesOn(await pg.database(ctx))
    const heard = await rt.runPromise(
      Effect.gen(function* () {
        const feed = yield* ChangeFeed
        const queue = yield* Queue.unbounded<Change>()
        for (const topic of TOPICS) yield* (yield* feed.subscribe(topic)).pipe(Stream.runForEach((c) => Queue.offer(queue, c)), Effect.forkDaemon)
        return queue
        // The subscriptions stay open for the test (the runtime's end closes them).
      }).pipe(Effect.provideServiceEffect(Scope.Scope, Scope.make()))
    )
    const sql = await rt.runPromise(SqlClient.SqlClient)
    expect(await Effect.runPromise(databaseAnswers(sql, "2 seconds"))).toBe(true)

    await server.stopServer()
    expect(await Effect.runPromise(faultOf(sql`SELECT count(*) FROM runs`))).toBe("unavailable")
    const t0 = Date.now()
    expect(await Effect.runPromise(databaseAnswers(sql, "2 seconds"))).toBe(false)
    expect(Date.now() - t0).toBeLessThan(15_000) // bounded by the probe, not the pool's connect timeout

    await server.startServer()
    // The pool drops its broken connections and opens new ones: no restart of the daemon.
    let back = false
    for (let i = 0; i < 40 && !back; i++) {
      back = await Effect.runPromise(databaseAnswers(sql, "2 seconds"))
      if (!back) await new Promise((r) => setTimeout(r, 250))
    }
    expect(back).toBe(true)
    expect(await Effect.runPromise(faultOf(sql`SELECT count(*) FROM runs`))).toBe("none")
    // The feed listens again: every topic hears "may have changed" (the gap is unknown).
    const seen = new Set<string>()
    await Effect.runPromise(
      Queue.take(heard).pipe(
        Effect.tap((c) => Effect.sync(() => c.topic === "*" && seen.add(c.topic))),
        Effect.repeat({ until: () => seen.has("*") }),
        Effect.timeout(Duration.seconds(30))
      )
    )
    expect(seen.has("*")).toBe(true)
  }, 180_000)

  it("a statement past storage.statement_timeout_ms is cancelled by the server and typed as timeout", async (ctx) => {
    const rt = storesOn(await pg.database(ctx), 300)
    const sql = await rt.runPromise(SqlClient.SqlClient)
    const t0 = Date.now()
    const fault = await Effect.runPromise(
      sql`SELECT pg_sleep(5)`.pipe(
        Effect.as(null),
        Effect.catchAll((e) => Effect.succeed(storageFaultOf(e)))
      )
    )
    expect(fault).toEqual({ kind: "timeout", code: "57014", path: undefined })
    expect(Date.now() - t0).toBeLessThan(4_500)
    // A short statement on the same pool still answers.
    expect(await Effect.runPromise(databaseAnswers(sql, "5 seconds"))).toBe(true)
  }, 60_000)

  it("a key checked while the server is stopped is store_unavailable, and authenticates once it is back", async (ctx) => {
    const server = pg.server(ctx)
    const url = await pg.database(ctx)
    const config = testConfig({ bridge: { admin_key: "pg-outage-admin-key-0123456789abcdef" }, storage: { url } })
    const rt = ManagedRuntime.make(
      AuthLive.pipe(
        Layer.provideMerge(ChangeFeedLive),
        Layer.provideMerge(DbPostgres({ url: Redacted.make(url), pool_max: 2, statement_timeout_ms: 30_000 }).pipe(Layer.orDie)),
        Layer.provide(Layer.mergeAll(AppConfigLive(config), RedactorLive))
      )
    )
    runtimes.push(rt as ManagedRuntime.ManagedRuntime<unknown, unknown>)
    const auth = await rt.runPromise(Auth)
    const { key } = await rt.runPromise(auth.addClient("outage", ["agents"]))
    await server.stopServer()
    try {
      const refused = await rt.runPromise(Effect.flip(auth.authenticate(key)))
      expect(refused._tag).toBe("StoreUnavailable")
      expect(refused.message).toMatch(/^checking the key failed: the database server .* does not answer/)
    } finally {
      await server.startServer()
    }
    const back = await rt.runPromise(auth.authenticate(key).pipe(Effect.retry({ times: 20, schedule: Schedule.spaced("250 millis") })))
    expect(back._tag === "Some" && back.value.client).toBe("outage")
  }, 120_000)
})
