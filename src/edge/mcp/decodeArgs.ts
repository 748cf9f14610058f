/**
 * Decodes tool arguments with the tool's Schema. A failure is never a crash: it becomes the most
 * specific bridge error the tool names for the field, else `bridge.invalid_input`, with one plain
 * sentence per field that names it, what it must be and what it got (`wait_s must be at most 600
 * (got 601)`). The bounds are read from the JSON Schema the tool publishes, so the two never differ.
 */
import { Effect, Either, Option, type ParseResult, Schema, SchemaAST } from "effect"
import { type BridgeError, InvalidInput } from "../../domain/errors.ts"
import { NUL_REFUSAL, nulPath, pathText } from "../../domain/text.ts"
import type { ToolDef } from "./ToolDef.ts"

const MAX_MESSAGE = 500

/** A value as a refusal shows it: short, and never a whole object or array (they can be huge). */
const shown = (v: unknown): string => {
  if (v === undefined) return "nothing"
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)
  if (v === null || typeof v === "number" || typeof v === "boolean") return String(v)
  if (Array.isArray(v)) return `an array of ${v.length} item${v.length === 1 ? "" : "s"}`
  return typeof v === "object" ? "an object" : typeof v
}

/** What a schema expects, in words. */
const expected = (ast: SchemaAST.AST, depth = 0): string => {
  if (depth > 8) return "a valid value"
  switch (ast._tag) {
    case "StringKeyword":
    case "TemplateLiteral":
      return "a string"
    case "NumberKeyword":
      return "a number"
    case "BooleanKeyword":
      return "true or false"
    case "Literal":
      return JSON.stringify(ast.literal)
    case "TypeLiteral":
      return "an object"
    case "TupleType":
      return "an array"
    case "Enums":
      return `one of ${ast.enums.map(([, v]) => JSON.stringify(v)).join(", ")}`
    case "Union": {
      const members = ast.types.filter((t) => !SchemaAST.isUndefinedKeyword(t))
      if (members.every(SchemaAST.isLiteral)) return `one of ${members.map((m) => JSON.stringify(m.literal)).join(", ")}`
      return [...new Set(members.map((m) => expected(m, depth + 1)))].join(" or ")
    }
    case "Refinement":
    case "Transformation":
      return expected(ast.from, depth + 1)
    case "Suspend":
      return expected(ast.f(), depth + 1)
    default:
      return "a valid value"
  }
}

type Bounds = Readonly<Record<string, unknown>>

/** What a refinement asks for, read from the plain JSON Schema it publishes (the same bounds clients see). */
const refinementSentence = (ast: SchemaAST.Refinement, actual: unknown): string => {
  const b = Option.getOrElse(SchemaAST.getJSONSchemaAnnotation(ast), () => ({})) as Bounds
  const n = typeof actual === "number" ? actual : undefined
  const len = typeof actual === "string" ? [...actual].length : undefined
  const items = Array.isArray(actual) ? actual.length : undefined
  if (b["type"] === "integer") return "must be a whole number"
  if (typeof b["maximum"] === "number" && (n === undefined || n > b["maximum"])) return `must be at most ${b["maximum"]}`
  if (typeof b["minimum"] === "number" && (n === undefined || n < b["minimum"])) return `must be at least ${b["minimum"]}`
  if (typeof b["exclusiveMaximum"] === "number") return `must be less than ${b["exclusiveMaximum"]}`
  if (typeof b["exclusiveMinimum"] === "number") return `must be more than ${b["exclusiveMinimum"]}`
  if (typeof b["maxLength"] === "number" && (len === undefined || len > b["maxLength"])) return `must be at most ${b["maxLength"]} characters long`
  if (typeof b["minLength"] === "number") return b["minLength"] === 1 ? "must not be empty" : `must be at least ${b["minLength"]} characters long`
  if (typeof b["maxItems"] === "number" && (items === undefined || items > b["maxItems"])) return `must have at most ${b["maxItems"]} item${b["maxItems"] === 1 ? "" : "s"}`
  if (typeof b["minItems"] === "number") return `must have at least ${b["minItems"]} item${b["minItems"] === 1 ? "" : "s"}`
  if (typeof b["pattern"] === "string") return `must match the pattern ${b["pattern"]}`
  const message = ast.annotations[SchemaAST.MessageAnnotationId]
  return typeof message === "string" ? message : "is not valid"
}

interface Problem {
  readonly path: ReadonlyArray<PropertyKey>
  /** What is wrong, without the field's name. */
  readonly what: string
  readonly actual?: { readonly value: unknown }
}

const asArray = <A>(x: A | ReadonlyArray<A>): ReadonlyArray<A> => (Array.isArray(x) ? x : [x as A])

/**
 * The problems of an issue tree, one per leaf, worded plainly. An optional field is a union with
 * `undefined`, whose "expected undefined" branch says nothing useful and is left out; a union of
 * literals is one "must be one of" sentence.
 */
const problemsOf = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey> = [], out: Array<Problem> = []): Array<Problem> => {
  switch (issue._tag) {
    case "Pointer":
      problemsOf(issue.issue, [...path, ...asArray(issue.path)], out)
      break
    case "Composite": {
      const members = asArray(issue.issues).filter((i) => !(i._tag === "Type" && SchemaAST.isUndefinedKeyword(i.ast)))
      if (SchemaAST.isUnion(issue.ast) && members.length > 0 && members.every((i) => i._tag === "Type")) {
        out.push({ path, what: `must be ${expected(issue.ast)}`, actual: { value: issue.actual } })
      } else {
        for (const i of members) problemsOf(i, path, out)
      }
      break
    }
    case "Refinement":
      if (issue.kind === "From") problemsOf(issue.issue, path, out)
      else out.push({ path, what: refinementSentence(issue.ast, issue.actual), actual: { value: issue.actual } })
      break
    case "Transformation":
      problemsOf(issue.issue, path, out)
      break
    case "Missing":
      out.push({ path, what: "is missing" })
      break
    case "Unexpected":
      out.push({ path, what: "is not an argument of this tool" })
      break
    case "Type":
      out.push({ path, what: `must be ${expected(issue.ast)}`, actual: { value: issue.actual } })
      break
    case "Forbidden":
      out.push({ path, what: "could not be checked" })
      break
  }
  return out
}

/**
 * Arguments holding more JSON values than this are checked up to their first issue only, and worded
 * without printing values: collecting every issue of a 100,000-element array took seconds of CPU
 * (about 20 s for a 4 MiB body), stalling every other call on the daemon.
 */
const SMALL_INPUT_VALUES = 1_000

/** Whether `u` holds at most `budget` JSON values; stops counting once over. */
const isSmall = (u: unknown, budget = SMALL_INPUT_VALUES): boolean => {
  let left = budget
  const pending: Array<unknown> = [u]
  while (pending.length > 0) {
    const v = pending.pop()
    if (--left < 0) return false
    if (typeof v === "object" && v !== null) {
      const children = Array.isArray(v) ? v : Object.values(v)
      if (children.length > left) return false
      pending.push(...children)
    }
  }
  return true
}

/**
 * One plain sentence per field (the first problem found for it), at most three fields:
 * `wait_s must be at most 600 (got 601)`. Values are shown only for small inputs.
 */
const describeProblems = (problems: ReadonlyArray<Problem>, showValues: boolean): { field: string | undefined; message: string } => {
  const byField = new Map<string, Problem>()
  for (const p of problems) {
    const at = p.path.length > 0 ? p.path.map(String).join(".") : "the arguments"
    if (!byField.has(at)) byField.set(at, p)
  }
  const first = problems[0]
  const field = first?.path.map(String).join(".") || undefined
  const text = [...byField]
    .slice(0, 3)
    .map(([at, p]) => {
      const got = p.actual === undefined ? "" : showValues ? ` (got ${shown(p.actual.value)})` : " (the value is too large to show)"
      return `${at} ${p.what}${got}`
    })
    .join("; ")
  return { field, message: `invalid arguments: ${text}`.slice(0, MAX_MESSAGE) }
}

export const describeParseError = (e: ParseResult.ParseError): { field: string | undefined; message: string } =>
  describeProblems(problemsOf(e.issue), true)

const OPTIONS = { onExcessProperty: "error" } as const

export const decodeArgs = <I>(tool: ToolDef<I, any, any>, args: unknown): Effect.Effect<I, BridgeError> => {
  const input = args ?? {}
  return Schema.decodeUnknown(tool.input, { ...OPTIONS, errors: "first" })(input).pipe(
    Effect.mapError((firstIssue) => {
      // Small input: every issue, with the values. Large input: the first, without values.
      const { field, message } = isSmall(input)
        ? describeParseError(Either.getLeft(Schema.decodeUnknownEither(tool.input, { ...OPTIONS, errors: "all" })(input)).pipe(Option.getOrElse(() => firstIssue)))
        : describeProblems(problemsOf(firstIssue.issue), false)
      return tool.invalidInput?.(field?.split(".")[0], message) ?? new InvalidInput({ message })
    }),
    // No tool takes a NUL in any string (PostgreSQL can neither store nor look one up): refused once
    // the arguments decode (so a wrong type is named first), before the handler runs.
    Effect.flatMap((decoded) => {
      const nul = nulPath(input)
      if (nul === undefined) return Effect.succeed(decoded)
      const message = `invalid arguments: ${pathText(nul)} ${NUL_REFUSAL}`
      return Effect.fail(tool.invalidInput?.(nul.length === 0 ? undefined : String(nul[0]), message) ?? new InvalidInput({ message }))
    })
  )
}
