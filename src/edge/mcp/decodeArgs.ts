/**
 * Decodes tool arguments with the tool's Schema. A failure is never a crash: it becomes the most
 * specific bridge error the tool names for the field, else `bridge.invalid_input`, with a message
 * that names the field and what was expected.
 */
import { Effect, ParseResult, Schema } from "effect"
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
      return [{ _tag: issue._tag, path, message: "is not valid (a value nested too deeply to show)" }]
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

export const describeParseError = (e: ParseResult.ParseError): { field: string | undefined; message: string } => {
  const issues = formatIssues(e)
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

export const decodeArgs = <I>(tool: ToolDef<I, any, any>, args: unknown): Effect.Effect<I, BridgeError> =>
  Schema.decodeUnknown(tool.input, { errors: "all", onExcessProperty: "error" })(args ?? {}).pipe(
    Effect.mapError((e) => {
      const { field, message } = describeParseError(e)
      return tool.invalidInput?.(field?.split(".")[0], message) ?? new InvalidInput({ message })
    })
  )
