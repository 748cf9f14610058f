/**
 * Decodes tool arguments with the tool's Schema. A failure is never a crash: it becomes the most
 * specific bridge error the tool names for the field, else `bridge.invalid_input`, with a message
 * that names the field and what was expected.
 */
import { Effect, Either, Option, ParseResult, Schema } from "effect"
import { type BridgeError, InvalidInput } from "../../domain/errors.ts"
import type { ToolDef } from "./ToolDef.ts"

const MAX_MESSAGE = 500

/** The leaf issues with their paths, read from the issue tree without printing any value. */
const leafIssues = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey> = []): Array<ParseResult.ArrayFormatterIssue> => {
  switch (issue._tag) {
    case "Pointer":
      return leafIssues(issue.issue, [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])])
    case "Composite":
      return (Array.isArray(issue.issues) ? issue.issues : [issue.issues as ParseResult.ParseIssue]).flatMap((i) => leafIssues(i, path))
    case "Refinement":
    case "Transformation":
      return leafIssues(issue.issue, path)
    case "Missing":
      return [{ _tag: issue._tag, path, message: "is missing" }]
    case "Unexpected":
      return [{ _tag: issue._tag, path, message: "is unexpected" }]
    default:
      return [{ _tag: issue._tag, path, message: `expected ${String(issue.ast).slice(0, 120)} (the value is too large to show)` }]
  }
}

/**
 * The formatter prints the offending value, recursively: a value nested thousands deep (valid JSON,
 * well under the body limit) overflows the stack there (thrown as is, or wrapped in a FiberFailure).
 * The input is already refused at that point; only the wording failed, so it is worded without values.
 */
const formatIssues = (e: ParseResult.ParseError): ReadonlyArray<ParseResult.ArrayFormatterIssue> => {
  try {
    return ParseResult.ArrayFormatter.formatErrorSync(e)
  } catch {
    return leafIssues(e.issue)
  }
}

/**
 * Arguments holding more JSON values than this are checked up to their first issue only, and worded
 * without printing values: collecting and printing every issue of a 100,000-element array took
 * seconds of CPU (about 20 s for a 4 MiB body), stalling every other call on the daemon.
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

const describeIssues = (issues: ReadonlyArray<ParseResult.ArrayFormatterIssue>): { field: string | undefined; message: string } => {
  const first = issues[0]
  const field = first?.path.map(String).join(".") || undefined
  const text = issues
    .slice(0, 3)
    .map((i) => {
      const at = i.path.length > 0 ? i.path.map(String).join(".") : "arguments"
      return `${at}: ${i.message.length > 200 ? `${i.message.slice(0, 200)}…` : i.message}`
    })
    .join("; ")
  return { field, message: `invalid arguments: ${text}`.slice(0, MAX_MESSAGE) }
}

export const describeParseError = (e: ParseResult.ParseError): { field: string | undefined; message: string } =>
  describeIssues(formatIssues(e))

const OPTIONS = { onExcessProperty: "error" } as const

export const decodeArgs = <I>(tool: ToolDef<I, any, any>, args: unknown): Effect.Effect<I, BridgeError> => {
  const input = args ?? {}
  return Schema.decodeUnknown(tool.input, { ...OPTIONS, errors: "first" })(input).pipe(
    Effect.mapError((firstIssue) => {
      // Small input: every issue, in the formatter's words. Large input: the first, without values.
      const { field, message } = isSmall(input)
        ? describeParseError(Either.getLeft(Schema.decodeUnknownEither(tool.input, { ...OPTIONS, errors: "all" })(input)).pipe(Option.getOrElse(() => firstIssue)))
        : describeIssues(leafIssues(firstIssue.issue))
      return tool.invalidInput?.(field?.split(".")[0], message) ?? new InvalidInput({ message })
    })
  )
}
