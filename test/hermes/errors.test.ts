/**
 * The one mapping of the Hermes adapter's errors to the bridge's (`services/hermes-failures/hermesErrors.ts`):
 * every adapter error → its bridge error, code and status (the seed's table), the per-operation
 * lists of specific errors, and the failure details the adapter reads off Hermes's answers.
 */
import { Duration, Effect, Option, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { errorCode, errorStatus } from "../../src/domain/errors.ts"
import {
  HermesBadAnswer,
  type HermesFailure,
  HermesLacks,
  HermesNoKey,
  HermesNoProfile,
  HermesStatus,
  HermesTimeout,
  HermesTransport,
  isTransient,
  parseRetryAfter,
  saysRunUnknown,
  transportDetail
} from "../../src/hermes/client/failure.ts"
import type { HermesCode } from "../../src/hermes/client/failure.ts"
import { OPERATION_CODES } from "../../src/hermes/client/operations.ts"
import { hermesError, toBridgeError } from "../../src/services/hermes-failures/hermesErrors.ts"
import { bridgeHermes } from "../../src/services/hermes-failures/bridgeHermes.ts"
import { unscripted } from "../../src/common/unscripted.ts"
import { type HermesClientShape, namedProfile } from "../../src/hermes/client/HermesClient.ts"

const site = { agent: "hermes/coder", route: "POST /v1/runs/{id}/stop" }
const profileOf = namedProfile("coder", "http://127.0.0.1:9/p/coder", Option.none())
const status = (s: number, code: string | null = null, detail: string | null = null) =>
  new HermesStatus({ ...site, status: s, code, detail, retryAfter: Option.none() })
const all: ReadonlyArray<HermesCode> = [
  "run_not_found", "run_not_accepting_steer", "steer_not_accepted", "run_not_active", "clarify_not_pending",
  "approval_not_active", "approval_not_pending", "idempotency_key_conflict", "invalid_idempotency_key"
]
const seen = (f: HermesFailure, allowed: ReadonlyArray<HermesCode> = all) => {
  const e = toBridgeError(f, allowed)
  return { tag: e._tag, code: errorCode(e), status: errorStatus(e), message: e.message }
}

describe("Hermes adapter errors → bridge errors", () => {
  it("each adapter error has its bridge error, code, status and message", () => {
    const cases: ReadonlyArray<readonly [HermesFailure, string, string, number, string]> = [
      [new HermesTransport({ ...site, detail: "ECONNREFUSED" }), "AgentUnavailable", "bridge.agent_unavailable", 502, "hermes/coder does not answer (ECONNREFUSED)"],
      [new HermesTimeout({ ...site, afterMs: 300 }), "AgentUnavailable", "bridge.agent_unavailable", 502, "hermes/coder did not answer within 300 ms"],
      [new HermesNoKey(site), "AgentUnkeyed", "bridge.agent_unkeyed", 503, "the bridge holds no API key for hermes/coder"],
      [new HermesBadAnswer({ ...site, detail: "unexpected body from POST /v1/runs" }), "AgentRefused", "bridge.agent_refused", 502,
        "hermes/coder sent an answer the bridge cannot read (unexpected body from POST /v1/runs)"],
      [new HermesLacks({ ...site, feature: "run_steer", action: "steer a running run" }), "AgentRefused", "bridge.agent_refused", 502,
        "hermes/coder cannot steer a running run: this Hermes build does not offer run_steer (its capabilities lack it)"],
      [status(500, "upstream_error", "provider said no"), "AgentRefused", "bridge.agent_refused", 502, "hermes/coder refused the request (500 upstream_error): provider said no"],
      [status(401, "invalid_api_key"), "AgentRefused", "bridge.agent_refused", 502, "hermes/coder refused the bridge's key (401 invalid_api_key)"]
    ]
    for (const [failure, tag, code, httpStatus, message] of cases) {
      expect(seen(failure), failure._tag).toEqual({ tag, code, status: httpStatus, message })
    }
  })

  it("an agent no profile answers to is unknown_agent 404, and pi is named as not runnable", () => {
    const unknown = toBridgeError(new HermesNoProfile({ agent: "hermes/nobody" }))
    expect([unknown._tag, errorCode(unknown), errorStatus(unknown)]).toEqual(["UnknownAgent", "bridge.unknown_agent", 404])
    expect(unknown.message).toContain('unknown agent "hermes/nobody"')
    const pi = toBridgeError(new HermesNoProfile({ agent: "pi" }))
    expect(pi.message).toContain("listed by agents_list but is not runnable")
    expect(pi.message).not.toContain("unknown agent")
  })

  it("Hermes 401/403 and every 5xx are agent_refused shown as 502, keeping Hermes's status", () => {
    for (const s of [401, 403, 500, 502, 503, 504]) {
      const e = toBridgeError(status(s, s === 401 ? "gateway_auth_failed" : null), all)
      expect(e._tag).toBe("AgentRefused")
      expect(errorStatus(e)).toBe(502)
      expect(e._tag === "AgentRefused" && e.hermesStatus).toBe(s)
    }
  })

  it("any other 4xx is agent_refused with Hermes's own status (429 stays 429)", () => {
    for (const [s, code] of [[429, "rate_limit_exceeded"], [400, "missing_input"], [413, "request_too_large"], [422, null], [409, "something_else"]] as const) {
      expect(seen(status(s, code))).toMatchObject({ code: "bridge.agent_refused", status: s })
    }
  })

  it("maps Hermes's specific codes to their bridge equivalents", () => {
    const cases: ReadonlyArray<readonly [number, string, string, number]> = [
      [404, "run_not_found", "bridge.run_not_found", 404],
      [409, "run_not_accepting_steer", "bridge.run_not_running", 409],
      [409, "steer_not_accepted", "bridge.run_not_running", 409],
      [409, "run_not_active", "bridge.run_not_running", 409],
      [409, "clarify_not_pending", "bridge.no_pending_request", 409],
      [409, "approval_not_active", "bridge.no_pending_request", 409],
      [409, "approval_not_pending", "bridge.no_pending_request", 409],
      [409, "idempotency_key_conflict", "bridge.idempotency_conflict", 409],
      [400, "invalid_idempotency_key", "bridge.invalid_idempotency_key", 422]
    ]
    for (const [s, code, bridge, bridgeStatus] of cases) expect(seen(status(s, code))).toMatchObject({ code: bridge, status: bridgeStatus })
    expect(seen(status(409, "run_not_accepting_steer", "finalising")).message).toBe(
      "hermes/coder does not accept this now: the run is not running (finalising)"
    )
  })

  it("a run is unknown only when Hermes's JSON says run_not_found; a bare 404 (a route the build lacks) is a refusal carrying 404", () => {
    expect(seen(status(404, "run_not_found"))).toMatchObject({ code: "bridge.run_not_found", message: "hermes/coder does not know this run" })
    const bare = seen(status(404))
    expect(bare).toMatchObject({ code: "bridge.agent_refused", status: 404 })
    expect(bare.message).toBe("hermes/coder refused the request (404): this Hermes build has no such route")
    // Another code on a 404 says nothing about the run either.
    expect(seen(status(404, "not_found"))).toMatchObject({ code: "bridge.agent_refused", status: 404 })
    expect(saysRunUnknown(status(404, "run_not_found"))).toBe(true)
    expect(saysRunUnknown(status(404))).toBe(false)
    expect(saysRunUnknown(status(404, "not_found"))).toBe(false)
  })

  it("a specific code the operation cannot raise falls back to agent_refused with Hermes's status", () => {
    expect(seen(status(409, "clarify_not_pending"), ["run_not_found"])).toMatchObject({ code: "bridge.agent_refused", status: 409 })
    // With no list at all (health, models, features, follow), even run_not_found is a refusal.
    expect(seen(status(404, "run_not_found"), [])).toMatchObject({ code: "bridge.agent_refused", status: 404 })
    expect(errorCode(hermesError()(status(404, "run_not_found")))).toBe("bridge.agent_refused")
  })

  it("each operation's list: what its route may answer, and nothing else", () => {
    const raises = (op: keyof typeof OPERATION_CODES | "follow", f: HermesFailure) =>
      errorCode(hermesError(op === "follow" ? [] : OPERATION_CODES[op])(f))
    expect(raises("start", status(409, "idempotency_key_conflict"))).toBe("bridge.idempotency_conflict")
    expect(raises("start", status(400, "invalid_idempotency_key"))).toBe("bridge.invalid_idempotency_key")
    expect(raises("start", status(404, "run_not_found"))).toBe("bridge.agent_refused")
    for (const op of ["status", "events", "approval", "steer", "stop", "clarify"] as const) {
      expect(raises(op, status(404, "run_not_found")), op).toBe("bridge.run_not_found")
    }
    expect(raises("status", status(409, "run_not_active"))).toBe("bridge.agent_refused")
    expect(raises("stop", status(409, "approval_not_pending"))).toBe("bridge.agent_refused")
    expect(raises("steer", status(409, "run_not_accepting_steer"))).toBe("bridge.run_not_running")
    expect(raises("steer", status(409, "approval_not_pending"))).toBe("bridge.agent_refused")
    expect(raises("approval", status(409, "approval_not_pending"))).toBe("bridge.no_pending_request")
    expect(raises("approval", status(409, "run_not_active"))).toBe("bridge.run_not_running")
    expect(raises("clarify", status(409, "clarify_not_pending"))).toBe("bridge.no_pending_request")
    expect(raises("clarify", status(409, "idempotency_key_conflict"))).toBe("bridge.agent_refused")
    // An operation without a list (health, models, features, follow) reports no code as itself.
    expect(raises("follow", status(404, "run_not_found"))).toBe("bridge.agent_refused")
  })

  it("messages name the agent and never a URL or the route", () => {
    const m = seen(new HermesTransport({ ...site, detail: "ECONNREFUSED" })).message
    expect(m).toContain("hermes/coder")
    expect(m).not.toMatch(/https?:/)
    expect(m).not.toContain("/v1/")
  })
})

describe("failure details", () => {
  it("finds the system error code deep in a cause chain (DNS, refused)", () => {
    const dns = Object.assign(new Error("fetch failed"), { cause: Object.assign(new Error("getaddrinfo ENOTFOUND x.invalid"), { code: "ENOTFOUND" }) })
    expect(transportDetail(dns)).toBe("ENOTFOUND")
    expect(transportDetail({ cause: { code: "ECONNREFUSED" } })).toBe("ECONNREFUSED")
    expect(transportDetail(new Error("boom"))).toBe("boom")
  })

  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(Option.map(parseRetryAfter("1"), Duration.toMillis)).toEqual(Option.some(1000))
    const now = Date.parse("2026-01-01T00:00:00Z")
    expect(Option.map(parseRetryAfter("Thu, 01 Jan 2026 00:00:02 GMT", now), Duration.toMillis)).toEqual(Option.some(2000))
    expect(parseRetryAfter("soon")).toEqual(Option.none())
    expect(parseRetryAfter(undefined)).toEqual(Option.none())
  })

  it("only no-answer, 429 and 5xx are worth repeating", () => {
    expect(isTransient(new HermesTransport({ ...site, detail: "x" }))).toBe(true)
    expect(isTransient(new HermesTimeout({ ...site, afterMs: 1 }))).toBe(true)
    expect(isTransient(status(429))).toBe(true)
    expect(isTransient(status(503))).toBe(true)
    expect(isTransient(status(401))).toBe(false)
    expect(isTransient(status(404))).toBe(false)
    expect(isTransient(new HermesNoKey(site))).toBe(false)
  })
})

describe("bridgeHermes: the client as the services call it", () => {
  const hermes = unscripted<HermesClientShape>("HermesClient")({
    profiles: [profileOf],
    profile: (agent) => Effect.fail(new HermesNoProfile({ agent })),
    stop: () => Effect.fail(status(404, "run_not_found")),
    steer: () => Effect.fail(status(409, "approval_not_pending")),
    health: () => Effect.fail(status(404, "run_not_found")),
    events: () => Stream.fail(status(404, "run_not_found"))
  })
  const bridge = bridgeHermes(hermes)
  const failure = <A, E extends { readonly _tag: string }>(e: Effect.Effect<A, E>) => Effect.runPromise(Effect.flip(e))

  it("maps each operation's failures with its raise list, and a profile lookup to unknown_agent", async () => {
    expect((await failure(bridge.profile("hermes/nobody")))._tag).toBe("UnknownAgent")
    expect((await failure(bridge.stop(profileOf, "r")))._tag).toBe("RunNotFound")
    // A code outside the operation's list, and any code of an operation without one, is a refusal.
    expect(errorCode(await failure(bridge.steer(profileOf, "r", "x")))).toBe("bridge.agent_refused")
    expect(errorCode(await failure(bridge.health(profileOf)))).toBe("bridge.agent_refused")
  })

  it("maps a stream's failure the same way, and passes values through", async () => {
    expect((await failure(Stream.runDrain(bridge.events(profileOf, "r"))))._tag).toBe("RunNotFound")
    expect(bridge.profiles).toBe(hermes.profiles)
  })
})
