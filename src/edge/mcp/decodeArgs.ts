/**
 * Decodes tool arguments with the tool's Schema. A failure is never a crash: it becomes the most
 * specific bridge error the tool names for the field, else `bridge.invalid_input`, with a message
 * that names the field and what was expected.
 */
import { Effect, ParseResult, Schema } from "effect"
import { type BridgeError, InvalidInput } from "../../domain/errors.ts"
import type { ToolDef } from "./ToolDef.ts"

const MAX_MESSAGE = 500

export const describeParseError = (e: ParseResult.ParseError): { field: string | undefined; message: string } => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(e)
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
