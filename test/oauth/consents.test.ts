/**
 * The connection requests' store (`services/oauth/Consents.ts`): one row per interaction (opening
 * it again is the same row), decided once, expired past the timeout, and at most
 * `MAX_PENDING_CONSENTS` waiting at once.
 */
import { Effect, Option, TestClock, TestContext } from "effect"
import { describe, expect, it } from "vitest"
import { MAX_PENDING_CONSENTS } from "../../src/domain/oauth.ts"
import { Consents, ConsentsTest } from "../../src/services/oauth/Consents.ts"

const request = (id: string) => ({
  id, client_id: `client-${id}`, client_name: "App", client_host: "app.example", redirect_host: "app.example", scopes: ["agents"], resource: "https://b.example/mcp/agents/mcp"
})

const run = <A>(program: Effect.Effect<A, never, Consents>) =>
  Effect.runPromise(program.pipe(Effect.provide(ConsentsTest(60)), Effect.provide(TestContext.TestContext)))

describe("connection requests", () => {
  it("opens one row per interaction, decides it once, and refuses past the pending bound", async () => {
    await run(Effect.gen(function* () {
      const consents = yield* Consents
      const first = yield* consents.open(request("a"))
      expect(Option.getOrThrow(first).state).toBe("pending")
      expect(Option.getOrThrow(yield* consents.open(request("a"))).created_at).toBe(Option.getOrThrow(first).created_at)
      expect(Option.getOrThrow(yield* consents.decide("a", { approve: true, by: "admin", bridgeClient: "app" }))).toMatchObject({ state: "approved", bridge_client: "app" })
      expect(yield* consents.decide("a", { approve: false, by: "admin" })).toEqual(Option.none())
      for (let i = 0; i < MAX_PENDING_CONSENTS; i++) expect(Option.isSome(yield* consents.open(request(`p${i}`)))).toBe(true)
      expect(yield* consents.open(request("one-too-many"))).toEqual(Option.none())
      // A row already open is still read, full or not.
      expect(Option.isSome(yield* consents.open(request("p0")))).toBe(true)
      yield* TestClock.adjust("61 seconds")
      expect(yield* consents.pending).toEqual([])
      expect(Option.getOrThrow(yield* consents.get("p0")).state).toBe("expired")
      expect(Option.isSome(yield* consents.open(request("after")))).toBe(true)
    }))
  })
})
