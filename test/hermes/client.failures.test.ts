/**
 * Every failure mapping of the seed's table, produced by a real simulator over real HTTP and
 * seen through the HermesClient and the services' mapping of its errors, in both generations; and the retry policy (reads and keyed
 * starts are repeated, anything else is not).
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { errorCode, errorStatus } from "../../src/domain/errors.ts"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { makeHermesClient } from "../../src/hermes/client/HermesClientLive.ts"
import { SimulatedHermes } from "../../src/hermes/sim/layer.ts"
import { bridgeHermes } from "../../src/services/hermes-failures/bridgeHermes.ts"
import { clientAndSim as clientAndSimRaw, defaultProfile, simStatus, withKey } from "./support/sim.ts"

/** The client as the services see it: its failures mapped to the bridge's errors. */
const clientAndSim = Effect.map(clientAndSimRaw, ({ hermes, sim }) => ({ hermes: bridgeHermes(hermes), sim }))

const seen = (e: Parameters<typeof errorCode>[0]) => ({ code: errorCode(e), status: errorStatus(e) })
const UNKNOWN = "run_0123456789abcdef0123456789abcdef"

for (const generation of ["old", "new"] as const) {
  describe(`HermesClient failure mappings (${generation} build)`, () => {
    layer(SimulatedHermes({ generation, maxConcurrentRuns: 1, steer: true }, { timeout: "5 seconds" }), { excludeTestServices: true })((it) => {
      it.effect("connection refused → agent_unavailable 502", () =>
        Effect.gen(function* () {
          const { hermes, sim } = yield* clientAndSim
          const p = yield* defaultProfile
          yield* sim.stop
          const errors = yield* Effect.all([Effect.flip(hermes.health(p)), Effect.flip(hermes.start(p, { input: "x" }))])
          yield* sim.start
          for (const e of errors) expect(seen(e)).toEqual({ code: "bridge.agent_unavailable", status: 502 })
        }))

      it.effect("no answer within the timeout → agent_unavailable 502", () =>
        Effect.gen(function* () {
          const { sim } = yield* clientAndSim
          const p = yield* defaultProfile
          // A client of its own with a short timeout: the shared one waits long enough that a loaded
          // machine never turns another test's refusal into "no answer".
          const hermes = bridgeHermes(yield* makeHermesClient([p], { timeout: "300 millis" }))
          yield* sim.injectFault({ route: "steer", delayMs: 1500 })
          const e = yield* Effect.flip(hermes.steer(p, UNKNOWN, "x"))
          expect(seen(e)).toEqual({ code: "bridge.agent_unavailable", status: 502 })
          expect(e.message).toContain("300 ms")
        }).pipe(Effect.provide(NodeHttpClient.dispatcherLayer)))

      it.effect("a refused key (401) → agent_refused 502 carrying Hermes's 401", () =>
        Effect.gen(function* () {
          const { hermes } = yield* clientAndSim
          const p = withKey(yield* defaultProfile, "not-the-key")
          const e = yield* Effect.flip(hermes.models(p))
          expect(seen(e)).toEqual({ code: "bridge.agent_refused", status: 502 })
          expect(e._tag === "AgentRefused" && e.hermesStatus).toBe(401)
          expect(e.message).not.toContain("not-the-key")
        }))

      it.effect("a bare 403 and any 5xx → agent_refused 502", () =>
        Effect.gen(function* () {
          const { hermes, sim } = yield* clientAndSim
          const p = yield* defaultProfile
          yield* sim.injectFault({ route: "stop", status: 403, bare: true })
          expect(seen(yield* Effect.flip(hermes.stop(p, UNKNOWN)))).toEqual({ code: "bridge.agent_refused", status: 502 })
          yield* sim.injectFault({ route: "stop", status: 500 })
          expect(seen(yield* Effect.flip(hermes.stop(p, UNKNOWN)))).toEqual({ code: "bridge.agent_refused", status: 502 })
          yield* sim.setDraining(true)
          const draining = yield* Effect.flip(hermes.start(p, { input: "x" }))
          yield* sim.setDraining(false)
          expect(seen(draining)).toEqual({ code: "bridge.agent_refused", status: 502 })
          expect(draining.message).toContain("gateway_draining")
        }))

      it.effect("Hermes's 429 stays 429 (and a start without an idempotency key is not repeated)", () =>
        Effect.gen(function* () {
          const { hermes, sim } = yield* clientAndSim
          const p = yield* defaultProfile
          const busy = yield* hermes.start(p, { input: "[sim:slow=5000]" })
          const before = (yield* sim.requests).length
          const e = yield* Effect.flip(hermes.start(p, { input: "second" }))
          expect(seen(e)).toEqual({ code: "bridge.agent_refused", status: 429 })
          expect((yield* sim.requests).slice(before).filter((r) => r.path === "/v1/runs")).toHaveLength(1)
          yield* hermes.stop(p, busy.hermesRunId)
          yield* simStatus(busy.hermesRunId, "cancelled")
        }))

      it.effect("any other 4xx → agent_refused with Hermes's status", () =>
        Effect.gen(function* () {
          const { hermes, sim } = yield* clientAndSim
          const p = yield* defaultProfile
          for (const [status, code] of [[400, "missing_input"], [413, "request_too_large"], [422, "unprocessable"]] as const) {
            yield* sim.injectFault({ route: "start", status, code })
            expect(seen(yield* Effect.flip(hermes.start(p, { input: "x" })))).toEqual({ code: "bridge.agent_refused", status })
          }
        }))

      it.effect("Hermes's specific codes → their bridge equivalents", () =>
        Effect.gen(function* () {
          const { hermes, sim } = yield* clientAndSim
          const p = yield* defaultProfile
          yield* sim.injectFault({ route: "steer", status: 409, code: "steer_not_accepted" })
          expect(seen(yield* Effect.flip(hermes.steer(p, UNKNOWN, "x")))).toEqual({ code: "bridge.run_not_running", status: 409 })
          yield* sim.injectFault({ route: "approval", status: 409, code: "approval_not_pending" })
          expect(seen(yield* Effect.flip(hermes.approval(p, UNKNOWN, { choice: "once" })))).toEqual({ code: "bridge.no_pending_request", status: 409 })
          yield* sim.injectFault({ route: "clarify", status: 409, code: "clarify_not_pending" })
          expect(seen(yield* Effect.flip(hermes.clarify(p, UNKNOWN, { clarifyId: "x", response: null })))).toEqual({ code: "bridge.no_pending_request", status: 409 })
          yield* sim.injectFault({ route: "start", status: 409, code: "idempotency_key_conflict" })
          expect(seen(yield* Effect.flip(hermes.start(p, { input: "x" })))).toEqual({ code: "bridge.idempotency_conflict", status: 409 })
          yield* sim.injectFault({ route: "start", status: 400, code: "invalid_idempotency_key" })
          expect(seen(yield* Effect.flip(hermes.start(p, { input: "x" })))).toEqual({ code: "bridge.invalid_idempotency_key", status: 422 })
          // A newer build's "no live task" is the same as an older build's 404 for stop.
          yield* sim.injectFault({ route: "stop", status: 409, code: "run_not_active" })
          expect(seen(yield* Effect.flip(hermes.stop(p, UNKNOWN)))).toEqual({ code: "bridge.run_not_found", status: 404 })
          expect(seen(yield* Effect.flip(hermes.status(p, UNKNOWN)))).toEqual({ code: "bridge.run_not_found", status: 404 })
        }))

      it.effect("no key → agent_unkeyed 503 without calling; health needs no key", () =>
        Effect.gen(function* () {
          const { hermes, sim } = yield* clientAndSim
          const p = withKey(yield* defaultProfile, null)
          const before = (yield* sim.requests).length
          expect(seen(yield* Effect.flip(hermes.start(p, { input: "x" })))).toEqual({ code: "bridge.agent_unkeyed", status: 503 })
          expect(seen(yield* Effect.flip(hermes.models(p)))).toEqual({ code: "bridge.agent_unkeyed", status: 503 })
          expect((yield* sim.requests).length).toBe(before)
          expect((yield* hermes.health(p)).status).toBe("ok")
        }))

      it.effect("the client's own errors are Hermes's terms: status, code, route template and agent, never a bridge code", () =>
        Effect.gen(function* () {
          const { hermes } = yield* clientAndSimRaw
          const p = yield* defaultProfile
          const unknown = yield* Effect.flip(hermes.stop(p, UNKNOWN))
          expect(unknown).toMatchObject({ _tag: "HermesStatus", status: 404, code: "run_not_found", agent: "hermes", route: "POST /v1/runs/{id}/stop" })
          expect(yield* Effect.flip(hermes.status(p, UNKNOWN))).toMatchObject({ _tag: "HermesStatus", route: "GET /v1/runs/{id}", code: "run_not_found" })
          const unkeyed = yield* Effect.flip(hermes.models(withKey(p, null)))
          expect(unkeyed).toMatchObject({ _tag: "HermesNoKey", agent: "hermes", route: "GET /v1/models" })
          expect(yield* Effect.flip(hermes.profile("hermes/nobody"))).toMatchObject({ _tag: "HermesNoProfile", agent: "hermes/nobody" })
          // What the error carries names no bridge code, no URL and no run id.
          const carried = (e: object) => Object.values({ ...e }).map(String).join(" ")
          expect(carried(unknown)).toContain("run_not_found")
          for (const e of [unknown, unkeyed]) expect(carried(e)).not.toMatch(/bridge\.|https?:|run_0123/)
        }))

      it.effect("reads are repeated on transient failures", () =>
        Effect.gen(function* () {
          const { hermes, sim } = yield* clientAndSim
          const p = yield* defaultProfile
          const before = (yield* sim.requests).length
          yield* sim.injectFault({ route: "models", status: 503, times: 2 })
          expect(yield* hermes.models(p)).toEqual(["hermes-agent"])
          expect((yield* sim.requests).slice(before).filter((r) => r.path === "/v1/models")).toHaveLength(3)
          yield* sim.injectFault({ route: "models", destroy: true })
          expect(yield* hermes.models(p)).toEqual(["hermes-agent"])
        }))

      it.effect(generation === "new"
        ? "a start with an idempotency key is repeated, and makes one run"
        : "a start is never repeated where Hermes has no idempotency", () =>
        Effect.gen(function* () {
          const { hermes, sim } = yield* clientAndSim
          const p = yield* defaultProfile
          yield* hermes.features(p)
          const before = (yield* sim.requests).length
          yield* sim.injectFault({ route: "start", status: 502 })
          const r = yield* Effect.either(hermes.start(p, { input: "x", idempotencyKey: `c:retry-${generation}` }))
          const starts = (yield* sim.requests).slice(before).filter((q) => q.path === "/v1/runs")
          if (generation === "new") {
            expect(r._tag).toBe("Right")
            expect(starts).toHaveLength(2)
            expect(new Set(starts.map((q) => q.headers["idempotency-key"]))).toEqual(new Set([`c:retry-${generation}`]))
            if (r._tag === "Right") {
              yield* hermes.stop(p, r.right.hermesRunId)
              yield* simStatus(r.right.hermesRunId, "completed").pipe(Effect.orElse(() => simStatus(r.right.hermesRunId, "cancelled")))
            }
          } else {
            expect(r._tag).toBe("Left")
            expect(starts).toHaveLength(1)
          }
        }))

      it.effect("control calls are not repeated", () =>
        Effect.gen(function* () {
          const { hermes, sim } = yield* clientAndSim
          const p = yield* defaultProfile
          const before = (yield* sim.requests).length
          yield* sim.injectFault({ route: "steer", status: 503 })
          yield* Effect.flip(hermes.steer(p, UNKNOWN, "x"))
          expect((yield* sim.requests).slice(before).filter((r) => r.path.endsWith("/steer"))).toHaveLength(1)
        }))
    })
  })
}
