/**
 * Client registrations are bounded (issue 40: registration is open to anyone who reaches the
 * bridge): a registration no approved grant uses expires after `REGISTRATION_UNUSED_S`; the first
 * grant keeps it; past `MAX_PENDING_REGISTRATIONS` unused ones the endpoint answers 429 without
 * storing anything.
 */
import { Effect, Layer, Option, TestClock, TestContext } from "effect"
import { describe, expect, it } from "vitest"
import { MAX_PENDING_REGISTRATIONS, OAUTH_PREFIX, REGISTRATION_UNUSED_S } from "../../src/domain/oauth.ts"
import { OAuthStore, OAuthStoreLive } from "../../src/services/oauth/OAuthStore.ts"
import { DbMemory } from "../../src/storage/Db.ts"
import type { TestDaemon } from "../support/daemon.ts"
import { REDIRECT, useOAuthDaemon } from "./support.ts"

const run = <A>(program: Effect.Effect<A, never, OAuthStore>) =>
  Effect.runPromise(program.pipe(Effect.provide(OAuthStoreLive.pipe(Layer.provide(DbMemory))), Effect.provide(TestContext.TestContext)))

describe("client registrations in the store", () => {
  it("an unused registration expires; a grant for it keeps it", async () => {
    await run(Effect.gen(function* () {
      const store = yield* OAuthStore
      yield* store.upsert("Client", "kept", { client_id: "kept" }, undefined)
      yield* store.upsert("Client", "unused", { client_id: "unused" }, undefined)
      expect(yield* store.pendingRegistrations).toBe(2)
      yield* store.upsert("Grant", "g1", { accountId: "app", clientId: "kept" }, 3600)
      expect(yield* store.pendingRegistrations).toBe(1)
      yield* TestClock.adjust(`${REGISTRATION_UNUSED_S + 1} seconds`)
      expect(yield* store.pendingRegistrations).toBe(0)
      expect(Option.isSome(yield* store.find("Client", "kept"))).toBe(true)
      expect(yield* store.find("Client", "unused")).toEqual(Option.none())
    }))
  })
})

describe("the registration endpoint past the bound", () => {
  let daemon: TestDaemon
  useOAuthDaemon((d) => { daemon = d })

  const register = (i: number) =>
    fetch(`${daemon.url}${OAUTH_PREFIX}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: `flood ${i}`, redirect_uris: [REDIRECT], token_endpoint_auth_method: "none", grant_types: ["authorization_code"], response_types: ["code"] })
    })

  it(`takes ${MAX_PENDING_REGISTRATIONS} unused registrations, then answers 429 and stores nothing more`, async () => {
    for (let i = 0; i < MAX_PENDING_REGISTRATIONS; i += 16) {
      const batch = await Promise.all(Array.from({ length: Math.min(16, MAX_PENDING_REGISTRATIONS - i) }, (_, k) => register(i + k)))
      for (const res of batch) expect(res.status, await res.text()).toBe(201)
    }
    const pending = () => daemon.use(Effect.flatMap(OAuthStore, (s) => s.pendingRegistrations))
    expect(await pending()).toBe(MAX_PENDING_REGISTRATIONS)
    const refused = await register(MAX_PENDING_REGISTRATIONS)
    expect(refused.status).toBe(429)
    expect(refused.headers.get("retry-after")).toBe("3600")
    expect(await refused.json()).toMatchObject({ error: "temporarily_unavailable" })
    expect(await pending()).toBe(MAX_PENDING_REGISTRATIONS)
  }, 120_000)
})
