/**
 * A handler that answers with the very object it answered before (the run service's reused view of
 * a finished run) has it encoded once per tool (`runTool.ts`); any other answer is encoded afresh,
 * and each call still gets a result of its own.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { runTool } from "../../src/edge/mcp/runTool.ts"
import { defineTool } from "../../src/edge/mcp/ToolDef.ts"
import type { CallToolResult } from "../../src/edge/mcp/wireTypes.ts"
import { Caller } from "../../src/request/Caller.ts"
import type { ProgressShape } from "../../src/request/Progress.ts"

const noProgress: ProgressShape = { enabled: false, report: () => Effect.void }

/** Counts its encodings: a string field encoded through a transformation. */
const counting = () => {
  let encodings = 0
  const Counted = Schema.transform(Schema.String, Schema.String, {
    strict: true,
    decode: (s) => s,
    encode: (s) => {
      encodings += 1
      return s.toUpperCase()
    }
  })
  return { output: Schema.Struct({ word: Counted }), encodings: () => encodings }
}

const answering = (name: string, output: Schema.Schema<{ readonly word: string }, any>, answer: () => { readonly word: string }) =>
  defineTool({
    name,
    title: name,
    description: "Answers what it is given.",
    input: Schema.Struct({}),
    output,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    handler: () => Effect.sync(answer)
  })

const call = (tool: ReturnType<typeof answering>) => runTool(tool, {}, Caller.client("c"), noProgress)
const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text

describe("encoded answers", () => {
  it.effect("the same answer object is encoded once; each call gets its own result", () =>
    Effect.gen(function* () {
      const c = counting()
      const kept = { word: "same" }
      const tool = answering("kept", c.output, () => kept)
      const a = yield* call(tool)
      const b = yield* call(tool)
      expect(c.encodings()).toBe(1)
      expect(b).not.toBe(a)
      expect(b).toEqual(a)
      expect(textOf(a)).toBe(JSON.stringify({ word: "SAME" }))
      expect(a.structuredContent).toEqual({ word: "SAME" })
    }))

  it.effect("a new answer object is encoded afresh, even when equal", () =>
    Effect.gen(function* () {
      const c = counting()
      let n = 0
      const tool = answering("fresh", c.output, () => ({ word: `w${(n += 1) > 1 ? 2 : 1}` }))
      expect(textOf(yield* call(tool))).toBe('{"word":"W1"}')
      expect(textOf(yield* call(tool))).toBe('{"word":"W2"}')
      expect(textOf(yield* call(tool))).toBe('{"word":"W2"}')
      expect(c.encodings()).toBe(3)
    }))

  it.effect("one object answered by two tools is encoded by each tool's own output schema", () =>
    Effect.gen(function* () {
      const kept = { word: "shared" }
      const upper = answering("upper", counting().output, () => kept)
      const plain = answering("plain", Schema.Struct({ word: Schema.String }), () => kept)
      expect(textOf(yield* call(upper))).toBe('{"word":"SHARED"}')
      expect(textOf(yield* call(plain))).toBe('{"word":"shared"}')
    }))
})
