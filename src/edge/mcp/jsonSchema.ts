/**
 * Tool JSON Schemas come from the same Effect Schemas that decode the arguments. Effect emits
 * refinements (Int, ranges) as `$defs` + `$ref`; MCP clients expect a flat `type: "object"` root, so
 * references are inlined and the draft marker dropped. Effect also titles each refinement with its
 * own name (`"between(0, 600)"`, `"int"`, `"greaterThanOrEqualTo(0)"`), which clients hand to the
 * model as if it were the field's name; the bounds themselves are already there as plain JSON Schema
 * (`minimum`, `maximum`, `type: "integer"`, `maxLength`, `pattern`), so those titles are dropped.
 */
import { JSONSchema, SchemaAST, type Schema } from "effect"

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [k: string]: Json }

/** Keywords whose value maps names to schemas: their keys are field names, not keywords. */
const NAME_MAPS = new Set(["properties", "patternProperties"])

const inline = (node: Json, defs: Readonly<Record<string, Json>>, depth: number, namesHere = false): Json => {
  if (depth > 64) throw new Error("tool schema nests too deeply to inline")
  if (Array.isArray(node)) return node.map((n) => inline(n, defs, depth + 1))
  if (node === null || typeof node !== "object") return node
  const obj = node as { readonly [k: string]: Json }
  const ref = obj["$ref"]
  if (typeof ref === "string" && ref.startsWith("#/$defs/")) {
    const target = defs[ref.slice("#/$defs/".length)]
    if (target === undefined) throw new Error(`dangling schema reference ${ref}`)
    const { $ref: _ref, ...rest } = obj
    return inline({ ...(target as object), ...rest } as Json, defs, depth + 1)
  }
  const out: Record<string, Json> = {}
  for (const [k, v] of Object.entries(obj)) {
    if (!namesHere) {
      // Effect tags built-in schemas with `$id`s that repeat (e.g. "/schemas/unknown"); validators reject duplicates.
      if (k === "$defs" || k === "$schema" || k === "$id") continue
      // No schema here sets a title of its own: every one is a refinement's or a built-in's name.
      if (k === "title") continue
    }
    out[k] = inline(v, defs, depth + 1, !namesHere && NAME_MAPS.has(k))
  }
  return out
}

const isEmptyStruct = (ast: SchemaAST.AST) =>
  SchemaAST.isTypeLiteral(ast) && ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0

export const toolJsonSchema = (schema: Schema.Schema<any, any, never>): { type: "object"; [k: string]: unknown } => {
  // Effect renders `Struct({})` as "any object or array"; a tool without arguments takes an empty object.
  if (isEmptyStruct(schema.ast)) return { type: "object", properties: {}, additionalProperties: false }
  const raw = JSONSchema.make(schema) as unknown as { readonly $defs?: Record<string, Json> } & Record<string, Json>
  const flat = inline(raw as Json, raw.$defs ?? {}, 0) as Record<string, unknown>
  if (flat["type"] !== "object") throw new Error("a tool schema must be an object at the root")
  return flat as { type: "object" }
}
