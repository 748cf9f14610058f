/**
 * The HermesClient against a peer that answers like the real Hermes 0.20 (test/hermes/support/
 * hermes020.ts): what that build lacks is named, never read as "run not found"; a stream that ends
 * without its terminal frame ends with the output and status Hermes's status gives.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { errorCode, errorStatus } from "../../src/domain/errors.ts"
import { makeHermesClient } from "../../src/hermes/client/HermesClientLive.ts"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { hermes020 } from "./support/hermes020.ts"
import { bridgeHermes } from "../../src/services/hermes-failures/bridgeHermes.ts"

const RUN = "run_0123456789abcdef0123456789abcdef"
/** The client as the services see it: its failures mapped to the bridge's errors. */
const client = (profiles: Parameters<typeof makeHermesClient>[0]) =>
  Effect.map(makeHermesClient(profiles, { timeout: "2 seconds", pollInterval: "20 millis" }), bridgeHermes)
/** The undici client lives as long as the test (provided around the whole body, not the build). */
const withHttp = <A, E, R>(body: Effect.Effect<A, E, R>) => body.pipe(Effect.provide(NodeHttpClient.dispatcherLayer))

describe("HermesClient against a Hermes 0.20-like peer", () => {
  it.scopedLive("steer on a build without run_steer: agent_refused naming the capability, and /steer is never posted", () =>
    withHttp(Effect.gen(function* () {
      const h = yield* hermes020
      h.runs.set(RUN, { frames: [], status: { status: "running" } })
      const hermes = yield* client([h.profile])
      const e = yield* Effect.flip(hermes.steer(h.profile, RUN, "go left"))
      expect(errorCode(e)).toBe("bridge.agent_refused")
      expect(errorStatus(e)).toBe(502)
      expect(e.message).toContain("run_steer")
      expect(h.requests.some((r) => r.path.endsWith("/steer"))).toBe(false)
    })))

  it.scopedLive("a plain-text 404 on an action route is a refusal with 404, not an unknown run", () =>
    withHttp(Effect.gen(function* () {
      const h = yield* hermes020
      const hermes = yield* client([h.profile])
      // `clarify` is not offered either; the clarify route is posted only where it is. Reach the
      // bare 404 through a route the double lacks: the stop of a profile with a base URL below it.
      const lacking = { ...h.profile, baseUrl: `${h.url}/nowhere` }
      const e = yield* Effect.flip(hermes.stop(lacking, RUN))
      expect(errorCode(e)).toBe("bridge.agent_refused")
      expect(errorStatus(e)).toBe(404)
      expect(e.message).toContain("no such route")
      // Hermes's JSON `run_not_found` is still an unknown run.
      const unknown = yield* Effect.flip(hermes.stop(h.profile, "run_ffffffffffffffffffffffffffffffff"))
      expect(errorCode(unknown)).toBe("bridge.run_not_found")
    })))

  it.scopedLive("an approval answered without a request id sends none", () =>
    withHttp(Effect.gen(function* () {
      const h = yield* hermes020
      h.runs.set(RUN, { frames: [], status: { status: "waiting_for_approval" } })
      const hermes = yield* client([h.profile])
      yield* hermes.approval(h.profile, RUN, { choice: "once" })
      const sent = h.requests.find((r) => r.path.endsWith("/approval"))
      expect(JSON.parse(sent?.body ?? "null")).toEqual({ choice: "once" })
    })))

  it.scopedLive("a stream that ends without its terminal frame: the output and status come from Hermes's status", () =>
    withHttp(Effect.gen(function* () {
      const h = yield* hermes020
      // The frames another subscriber took are missing from ours: "Hel" + "lo" of "Hello, world".
      h.runs.set(RUN, {
        frames: [{ event: "message.delta", run_id: RUN, timestamp: 1, delta: "Hel" }, { event: "message.delta", run_id: RUN, timestamp: 2, delta: "lo" }],
        status: { status: "completed", output: "Hello, world", usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 } }
      })
      const hermes = yield* client([h.profile])
      const events = Array.from(yield* Stream.runCollect(hermes.follow(h.profile, RUN)))
      const done = events.at(-1)
      expect(done?.event).toBe("run.completed")
      expect(done?.data.output).toBe("Hello, world")
      expect(done?.data.usage).toEqual({ input_tokens: 3, output_tokens: 4, total_tokens: 7 })
      // One subscription at a time: the reconnect came after the first stream ended, and was the only other.
      expect(h.subscribers.get(RUN)).toBe(2)
    })))
})
