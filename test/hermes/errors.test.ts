/** The failure table: Hermes failures → the bridge's errors, codes and statuses (the seed's table). */
import { Duration, Option } from "effect"
import { describe, expect, it } from "vitest"
import { errorCode, errorStatus } from "../../src/domain/errors.ts"
import { toBridgeError } from "../../src/hermes/client/errors.ts"
import {
  HermesBadAnswer,
  HermesLacks,
  HermesNoKey,
  HermesStatus,
  HermesTimeout,
  HermesTransport,
  isTransient,
  parseRetryAfter,
  saysRunUnknown,
  transportDetail
} from "../../src/hermes/client/failure.ts"

const status = (s: number, code: string | null = null) =>
  new HermesStatus({ status: s, code, detail: null, retryAfter: Option.none() })
const ctx = { agent: "hermes/coder" }
const all = ["RunNotFound", "RunNotRunning", "NoPendingRequest", "IdempotencyConflict", "InvalidIdempotencyKey"] as const
const seen = (f: Parameters<typeof toBridgeError>[0], allowed: ReadonlyArray<(typeof all)[number]> = all) => {
  const e = toBridgeError(f, ctx, allowed)
  return { code: errorCode(e), status: errorStatus(e), message: e.message }
}

describe("Hermes failures → bridge errors", () => {
  it("no answer (refused, DNS, reset, timeout) is agent_unavailable 502", () => {
    for (const f of [new HermesTransport({ detail: "ECONNREFUSED" }), new HermesTransport({ detail: "ENOTFOUND" }), new HermesTimeout({ afterMs: 100 })]) {
      expect(seen(f)).toMatchObject({ code: "bridge.agent_unavailable", status: 502 })
    }
  })

  it("Hermes 401/403 and every 5xx are agent_refused shown as 502, keeping Hermes's status", () => {
    for (const s of [401, 403, 500, 502, 503, 504]) {
      const e = toBridgeError(status(s, s === 401 ? "gateway_auth_failed" : null), ctx, all)
      expect(e._tag).toBe("AgentRefused")
      expect(errorStatus(e)).toBe(502)
      expect(e._tag === "AgentRefused" && e.hermesStatus).toBe(s)
    }
    expect(seen(status(401, "invalid_api_key")).message).toContain("refused the bridge's key")
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
  })

  it("a run is unknown only when Hermes's JSON says run_not_found; a bare 404 (a route the build lacks) is a refusal", () => {
    expect(seen(status(404, "run_not_found"))).toMatchObject({ code: "bridge.run_not_found" })
    const bare = seen(status(404))
    expect(bare).toMatchObject({ code: "bridge.agent_refused", status: 404 })
    expect(bare.message).toContain("no such route")
    expect(saysRunUnknown(status(404, "run_not_found"))).toBe(true)
    expect(saysRunUnknown(status(404))).toBe(false)
    expect(saysRunUnknown(status(404, "not_found"))).toBe(false)
  })

  it("a feature the build lacks is agent_refused 502 naming the capability", () => {
    const e = seen(new HermesLacks({ feature: "run_steer", action: "steer a running run" }))
    expect(e).toMatchObject({ code: "bridge.agent_refused", status: 502 })
    expect(e.message).toContain("run_steer")
    expect(e.message).toContain("steer a running run")
  })

  it("a specific code the operation cannot raise falls back to agent_refused with Hermes's status", () => {
    expect(seen(status(409, "clarify_not_pending"), ["RunNotFound"])).toMatchObject({ code: "bridge.agent_refused", status: 409 })
  })

  it("no key is agent_unkeyed 503; an unreadable answer is agent_refused 502", () => {
    expect(seen(new HermesNoKey())).toMatchObject({ code: "bridge.agent_unkeyed", status: 503 })
    expect(seen(new HermesBadAnswer({ detail: "x" }))).toMatchObject({ code: "bridge.agent_refused", status: 502 })
  })

  it("messages name the agent and never a URL", () => {
    const m = seen(new HermesTransport({ detail: "ECONNREFUSED" })).message
    expect(m).toContain("hermes/coder")
    expect(m).not.toMatch(/https?:/)
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
    expect(isTransient(new HermesTransport({ detail: "x" }))).toBe(true)
    expect(isTransient(new HermesTimeout({ afterMs: 1 }))).toBe(true)
    expect(isTransient(status(429))).toBe(true)
    expect(isTransient(status(503))).toBe(true)
    expect(isTransient(status(401))).toBe(false)
    expect(isTransient(status(404))).toBe(false)
    expect(isTransient(new HermesNoKey())).toBe(false)
  })
})
