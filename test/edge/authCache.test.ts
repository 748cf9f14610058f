/**
 * `Auth` remembers keys it found valid while the edge watches `Auth.changes`, so a request of a known
 * key reads no database; every way a key stops authenticating still reaches every request:
 * this process's revoke and rotate at once, another process's revoke (the CLI's own connection) as
 * soon as the watch notices it, before the watcher hears of it; and with nobody watching, nothing is
 * remembered at all.
 */
import { it } from "@effect/vitest"
import { Effect, Fiber, Layer, Option, Queue } from "effect"
import { describe, expect } from "vitest"
import { RedactorLive } from "../../src/common/Redactor.ts"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import type { ResolvedConfig } from "../../src/config/load.ts"
import { Auth, AuthLive } from "../../src/services/auth/Auth.ts"
import { ChangeFeedLive } from "../../src/storage/ChangeFeedLive.ts"
import { DbFor } from "../../src/storage/Db.ts"
import { testConfig } from "../support/daemon.ts"
import { fromAnotherConnection, withTestStorage } from "../support/otherConnection.ts"
import { watchAuth } from "./support/watchAuth.ts"

/** An UPDATE from another connection to the same database, as `agent-bridge client revoke` makes it. */
const fromAnotherProcess = fromAnotherConnection

/** The CLI's `authLayer` over the configured database (on PostgreSQL in the pg project). */
const authOn = (config: ResolvedConfig) =>
  AuthLive.pipe(Layer.provideMerge(ChangeFeedLive.pipe(Layer.provideMerge(DbFor(config)), Layer.provideMerge(Layer.mergeAll(AppConfigLive(config), RedactorLive)))))

const layerFor = () => {
  const config = testConfig()
  return { config, layer: Layer.orDie(Layer.unwrapEffect(Effect.map(withTestStorage(config), authOn))) as Layer.Layer<Auth> }
}

const client = (caller: Option.Option<{ client: string }>) => Option.map(caller, (c) => c.client)

/** Watches `changes` as the edge does. */
const watch = watchAuth

describe("Auth remembers valid keys only while their changes are watched", () => {
  const { config, layer } = layerFor()

  it.live("another process's revoke: refused once the watch notices, and forgotten before the watcher hears", () =>
    Effect.gen(function* () {
      const auth = yield* Auth
      const { key } = yield* auth.addClient("remembered", ["agents"])
      const { heard, fiber } = yield* watch
      expect(client(yield* auth.authenticate(key))).toEqual(Option.some("remembered"))
      yield* fromAnotherProcess(config, "UPDATE clients SET revoked_at = ? WHERE name = ?", Date.now(), "remembered")
      // The watch notices the commit and forgets the key before it tells the watcher.
      yield* Queue.take(heard)
      expect(yield* auth.authenticate(key)).toEqual(Option.none())
      yield* Fiber.interrupt(fiber)
    }).pipe(Effect.provide(layer)), 20_000)

  it.live("this process's rotate and revoke: the old key is refused at once", () =>
    Effect.gen(function* () {
      const auth = yield* Auth
      const { key: first } = yield* auth.addClient("rotated", ["agents", "memory"])
      const { fiber } = yield* watch
      expect(client(yield* auth.authenticate(first))).toEqual(Option.some("rotated"))
      const { key: second } = yield* auth.rotate("rotated")
      expect(yield* auth.authenticate(first)).toEqual(Option.none())
      expect(client(yield* auth.authenticate(second))).toEqual(Option.some("rotated"))
      yield* auth.revoke("rotated")
      expect(yield* auth.authenticate(second)).toEqual(Option.none())
      yield* Fiber.interrupt(fiber)
    }).pipe(Effect.provide(layer)), 20_000)

  it.live("with nobody watching, another process's revoke is seen by the very next request", () =>
    Effect.gen(function* () {
      const auth = yield* Auth
      const { key } = yield* auth.addClient("unwatched", ["agents"])
      expect(client(yield* auth.authenticate(key))).toEqual(Option.some("unwatched"))
      yield* fromAnotherProcess(config, "UPDATE clients SET revoked_at = ? WHERE name = ?", Date.now(), "unwatched")
      expect(yield* auth.authenticate(key)).toEqual(Option.none())
      // And a watch that ended leaves nothing remembered behind.
      yield* fromAnotherProcess(config, "UPDATE clients SET revoked_at = NULL WHERE name = ?", "unwatched")
      const { fiber } = yield* watch
      expect(client(yield* auth.authenticate(key))).toEqual(Option.some("unwatched"))
      yield* Fiber.interrupt(fiber)
      yield* fromAnotherProcess(config, "UPDATE clients SET revoked_at = ? WHERE name = ?", Date.now(), "unwatched")
      expect(yield* auth.authenticate(key)).toEqual(Option.none())
    }).pipe(Effect.provide(layer)), 20_000)
})

describe("a client name that cannot be one (issue 37 item 8a)", () => {
  const { layer } = layerFor()
  it.live("a NUL in a name to add, revoke or rotate is the client error, never a store failure", () =>
    Effect.gen(function* () {
      const auth = yield* Auth
      for (const name of ["nul\u0000", "\u0000"]) {
        const added = yield* Effect.flip(auth.addClient(name, ["agents"]))
        expect(added._tag).toBe("ClientError")
        const revoked = yield* Effect.flip(auth.revoke(name))
        expect(revoked._tag).toBe("ClientError")
        expect(revoked.message).toContain("no client named")
        expect((yield* Effect.flip(auth.rotate(name)))._tag).toBe("ClientError")
      }
    }).pipe(Effect.provide(layer)), 20_000)
})
