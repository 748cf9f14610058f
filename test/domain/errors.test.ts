/**
 * The error table: every error value becomes an error result that carries exactly its code, maps to
 * the seed's status, and a `bridge.internal` never carries any text of its cause.
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Effect, FastCheck as fc, Schema } from "effect"
import { AgentRefused, BridgeError, ErrorTable, errorCode, errorStatus } from "../../src/domain/errors.ts"
import { runTool } from "../../src/edge/mcp/runTool.ts"
import { ERROR_META_KEY, toolErrorResult } from "../../src/edge/mcp/toolResult.ts"
import { defineTool } from "../../src/edge/mcp/ToolDef.ts"
import { Caller } from "../../src/request/Caller.ts"
import { turnLoopEvery } from "../support/loopTurn.ts"

/** The seed's failure table, written out independently of the implementation. */
const SEED: Record<string, readonly [string, number | "hermes"]> = {
  AuthForbidden: ["auth.forbidden", 403],
  Unavailable: ["bridge.unavailable", 503],
  UnknownAgent: ["bridge.unknown_agent", 404],
  AgentUnkeyed: ["bridge.agent_unkeyed", 503],
  AgentUnavailable: ["bridge.agent_unavailable", 502],
  AgentRefused: ["bridge.agent_refused", "hermes"],
  RunNotFound: ["bridge.run_not_found", 404],
  TooManyRuns: ["bridge.too_many_runs", 429],
  TooManyQueued: ["bridge.too_many_queued", 429],
  IdempotencyConflict: ["bridge.idempotency_conflict", 409],
  RunNotRunning: ["bridge.run_not_running", 409],
  NoPendingRequest: ["bridge.no_pending_request", 409],
  InvalidSessionKey: ["bridge.invalid_session_key", 422],
  InvalidIdempotencyKey: ["bridge.invalid_idempotency_key", 422],
  InvalidOffset: ["bridge.invalid_offset", 422],
  StoreUnavailable: ["bridge.store_unavailable", 503],
  MemoryDisabled: ["bridge.memory_disabled", 503],
  MemoryInvalid: ["bridge.memory_invalid", 422],
  MemoryFailed: ["bridge.memory_failed", 502],
  SkillInvalid: ["bridge.skill_invalid", 422],
  SkillNotFound: ["bridge.skill_not_found", 404],
  SkillReadonly: ["bridge.skill_readonly", 403],
  SkillPendingElsewhere: ["bridge.skill_pending_elsewhere", 409],
  TooManyPending: ["bridge.too_many_pending", 429],
  QuotaExceeded: ["bridge.quota_exceeded", 429],
  InvalidInput: ["bridge.invalid_input", 422],
  Internal: ["bridge.internal", 500]
}

const hermesStatus = (s: number | undefined) => (s !== undefined && s >= 400 && s < 500 && s !== 401 && s !== 403 ? s : 502)
const arbitraryError = Arbitrary.make(BridgeError)
const toolName = fc.stringMatching(/^[a-z_]{1,30}$/)

describe("error table", () => {
  // Property runs settle through promises alone: the loop turns as they go (test/support/loopGuard.ts).
  const turn = turnLoopEvery()
  it("has one row per code of the seed's table plus auth.forbidden, invalid_input and quota_exceeded", () => {
    expect(Object.keys(ErrorTable).sort()).toEqual(Object.keys(SEED).sort())
    expect(new Set(Object.values(ErrorTable).map((r) => r.code)).size).toBe(Object.keys(SEED).length)
  })

  it.prop("every error is an error result with exactly its code and the seed's status", [arbitraryError, toolName], ([e, name]) => {
    const [code, status] = SEED[e._tag]!
    const expected = status === "hermes" ? hermesStatus((e as AgentRefused).hermesStatus) : status
    expect(errorCode(e)).toBe(code)
    expect(errorStatus(e)).toBe(expected)
    const result = toolErrorResult(name, e)
    expect(result.isError).toBe(true)
    expect(result.structuredContent).toBeUndefined()
    const text = (result.content[0] as { text: string }).text
    expect(text.startsWith(`Error executing tool ${name}: ${code}: `)).toBe(true)
    const codesInText = Object.values(SEED).map(([c]) => c).filter((c) => text.includes(`${c}:`))
    expect(codesInText).toEqual([code])
    expect(result._meta).toEqual({ [ERROR_META_KEY]: { code, status: expected } })
  }, { fastCheck: { numRuns: 500 } })

  it("passes Hermes's 4xx through except 401 and 403; everything else is 502", () => {
    for (let s = 100; s < 600; s++) {
      const e = new AgentRefused({ message: "x", hermesStatus: s })
      expect(errorStatus(e)).toBe(s >= 400 && s < 500 && s !== 401 && s !== 403 ? s : 502)
    }
    expect(errorStatus(new AgentRefused({ message: "x" }))).toBe(502)
  })

  it.effect.prop(
    "a bridge.internal never carries text of its cause",
    [fc.string({ minLength: 6, maxLength: 200 }), fc.boolean()],
    ([secret, asDefect]) =>
      Effect.gen(function* () {
        const marker = `CAUSE<${secret}>`
        const tool = defineTool({
          name: "boom",
          title: "Boom",
          description: "fails",
          input: Schema.Struct({}),
          output: Schema.Struct({}),
          annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
          handler: () => (asDefect ? Effect.die(new Error(marker)) : Effect.die(marker))
        })
        const result = yield* runTool(tool, {}, Caller.admin, { enabled: false, report: () => Effect.void })
        yield* turn
        const text = JSON.stringify(result)
        expect(result.isError).toBe(true)
        expect(text).toContain("bridge.internal: internal error; incident inc_")
        expect(text).not.toContain(marker)
        expect(text).not.toContain(secret.length >= 12 ? secret : "CAUSE<")
      }),
    { fastCheck: { numRuns: 200 } }
  )
})
