/**
 * The task methods' params schema: a compiled, synchronous Standard Schema that answers as Effect's
 * own `Schema.standardSchemaV1` does (same value, same issues), without a fiber per request.
 */
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { syncStandardSchema } from "../../src/edge/mcp/tasks/standardSchema.ts"

const Params = Schema.Struct({ taskId: Schema.String, n: Schema.optional(Schema.Number) })
const compiled = syncStandardSchema(Params)["~standard"]
const effects = Schema.standardSchemaV1(Params)["~standard"]

describe("syncStandardSchema", () => {
  it("decodes valid params in place (not a promise), dropping keys it does not know", () => {
    const result = compiled.validate({ taskId: "run_1", _meta: { a: 1 } })
    expect(result).not.toBeInstanceOf(Promise)
    expect(result).toEqual({ value: { taskId: "run_1" } })
    expect(result).toEqual(effects.validate({ taskId: "run_1", _meta: { a: 1 } }))
  })

  it("reports every problem with its path, as Schema.standardSchemaV1 does", () => {
    for (const bad of [{}, { taskId: 42 }, { taskId: 1, n: "x" }, null, "run_1"]) {
      const result = compiled.validate(bad)
      expect(result).not.toBeInstanceOf(Promise)
      expect("issues" in result && result.issues !== undefined && result.issues.length > 0).toBe(true)
      expect(result).toEqual(effects.validate(bad))
    }
    const both = compiled.validate({ taskId: 1, n: "x" })
    const paths = "issues" in both ? both.issues?.map((i) => i.path) : undefined
    expect(paths).toContainEqual(["taskId"])
    expect(paths).toContainEqual(["n"])
  })
})
