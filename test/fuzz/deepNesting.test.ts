/**
 * Found by the fuzzer: a value nested 10,000 deep (valid JSON, 20 KB, far under the body limit) in
 * any argument made Effect's issue formatter overflow the stack while wording the refusal, and the
 * call ended as `bridge.internal`. Every tool must refuse it as invalid input, naming the field.
 * Large inputs in general must be refused cheaply: a 100,000-element array of the wrong type took
 * seconds of CPU to refuse when every issue was collected and printed.
 */
import { Arbitrary, Effect, Either, FastCheck, SchemaAST } from "effect"
import { describe, expect, it } from "vitest"
import { errorCode } from "../../src/domain/errors.ts"
import { decodeArgs } from "../../src/edge/mcp/decodeArgs.ts"
import { makeMetaTools } from "../../src/edge/mcp/meta-tools/index.ts"
import { memoryTools } from "../../src/edge/mcp/memory-tools/index.ts"
import { agentTools } from "../../src/edge/mcp/agent-tools/index.ts"
import type { ToolDef } from "../../src/edge/mcp/ToolDef.ts"
import { deepArray, deepObject } from "./support/hostile.ts"

const tools = [...agentTools, ...makeMetaTools(agentTools, () => agentTools), ...memoryTools]
const DECODE_CODES = ["bridge.invalid_input", "bridge.memory_invalid", "bridge.skill_invalid", "bridge.invalid_offset"]

describe("deeply nested arguments", () => {
  for (const [label, text] of [["arrays", deepArray(10_000)], ["objects", deepObject(10_000)]] as const) {
    it(`are refused by field name in every tool (${label} 10,000 deep)`, async () => {
      for (const tool of tools) {
        const ast = tool.input.ast
        const fields = SchemaAST.isTypeLiteral(ast) ? ast.propertySignatures.map((p) => String(p.name)) : []
        // A tool without arguments (`Struct({})`) ignores whatever it is given.
        if (fields.length === 0) continue
        const whole = await Effect.runPromise(Effect.either(decodeArgs(tool, JSON.parse(text))))
        expect(Either.isLeft(whole), tool.name).toBe(true)
        // Valid values everywhere else, so the deep value is the one fault to name.
        const valid = FastCheck.sample(Arbitrary.make(tool.input), { numRuns: 1, seed: 9 })[0] as Record<string, unknown>
        for (const field of fields) {
          const r = await Effect.runPromise(Effect.either(decodeArgs(tool, { ...valid, [field]: JSON.parse(text) })))
          if (Either.isRight(r)) continue // a field typed Unknown accepts any value
          expect(DECODE_CODES, `${tool.name}.${field}`).toContain(errorCode(r.left))
          expect(r.left.message, `${tool.name}.${field}`).toContain(field)
        }
      }
    })
  }

  it("refuses a 600,000-element array of the wrong type by its first issue, naming the field", async () => {
    const memoryAdd: ToolDef = memoryTools.find((t) => t.name === "memory_add")!
    const tags = Array.from({ length: 600_000 }, (_, i) => i)
    const r = await Effect.runPromise(Effect.either(decodeArgs(memoryAdd, { text: "x", tags })))
    expect(Either.isLeft(r) && r.left.message).toMatch(/^invalid arguments: tags\.0 must be a string \(the value is too large to show\)/)
  })
  it("still names every issue of a small input", async () => {
    const agentRun: ToolDef = agentTools.find((t) => t.name === "agent_run")!
    const r = await Effect.runPromise(Effect.either(decodeArgs(agentRun, { wait_s: "soon" })))
    const message = Either.isLeft(r) ? r.left.message : ""
    for (const field of ["agent", "input", "wait_s"]) expect(message).toContain(field)
  })
})
