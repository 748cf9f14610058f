/**
 * An error result is text that leaves the bridge like any other: its message can carry Hermes's own
 * error text (`bridge.agent_refused: hermes refused the request (500 …): <Hermes's message>`), which
 * may quote a provider's key or an Authorization header. runTool masks it with the Redactor,
 * including the exact secrets the bridge holds; code, status and the text's frame stay as they are.
 */
import type { CallToolResult } from "../../src/edge/mcp/wireTypes.ts"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { AgentRefused, InvalidInput } from "../../src/domain/errors.ts"
import { runTool } from "../../src/edge/mcp/runTool.ts"
import { ERROR_META_KEY } from "../../src/edge/mcp/toolResult.ts"
import { defineTool } from "../../src/edge/mcp/ToolDef.ts"
import { Caller } from "../../src/request/Caller.ts"
import type { ProgressShape } from "../../src/request/Progress.ts"
import { RedactorWith } from "../../src/common/Redactor.ts"

const HELD = "hermes-key-Zq81xLmP0aRt"
const TOKEN = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
const noProgress: ProgressShape = { enabled: false, report: () => Effect.void }

const failing = (error: AgentRefused | InvalidInput) =>
  defineTool({
    name: "failing",
    title: "Failing",
    description: "Always fails with a typed error.",
    input: Schema.Struct({}),
    output: Schema.Struct({}),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    handler: () => Effect.fail(error)
  })

const textOf = (r: CallToolResult): string => (r.content[0] as { text: string }).text

describe("tool error results", () => {
  it.effect("mask secrets in the message, keep the code and status", () =>
    Effect.gen(function* () {
      const error = new AgentRefused({
        message: `hermes refused the request (500 upstream_error): provider said: invalid key ${TOKEN}; sent Authorization: Bearer ${HELD}`,
        hermesStatus: 500
      })
      const result = yield* runTool(failing(error), {}, Caller.client("c"), noProgress)
      expect(result.isError).toBe(true)
      const text = textOf(result)
      expect(text).not.toContain(TOKEN.slice(8))
      expect(text).not.toContain(HELD)
      expect(text).toBe(
        "Error executing tool failing: bridge.agent_refused: hermes refused the request (500 upstream_error): " +
          "provider said: invalid key ***REDACTED***; sent Authorization: Bearer ***REDACTED***"
      )
      expect(result._meta?.[ERROR_META_KEY]).toEqual({ code: "bridge.agent_refused", status: 502 })
    }).pipe(Effect.provide(RedactorWith([HELD]))))

  it.effect("mask a secret the bridge holds even where no rule would see it", () =>
    Effect.gen(function* () {
      const error = new InvalidInput({ message: `no such thing: ${HELD}` })
      const result = yield* runTool(failing(error), {}, Caller.client("c"), noProgress)
      expect(textOf(result)).toBe("Error executing tool failing: bridge.invalid_input: no such thing: ***REDACTED***")
    }).pipe(Effect.provide(RedactorWith([HELD]))))

  it.effect("leave a message with nothing secret unchanged", () =>
    Effect.gen(function* () {
      const error = new InvalidInput({ message: "max_tokens must be at most 4096 (token_count: 5000, passed: 3)" })
      const result = yield* runTool(failing(error), {}, Caller.client("c"), noProgress)
      expect(textOf(result)).toBe(
        "Error executing tool failing: bridge.invalid_input: max_tokens must be at most 4096 (token_count: 5000, passed: 3)"
      )
    }).pipe(Effect.provide(RedactorWith([HELD]))))
})
