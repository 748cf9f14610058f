/**
 * How a tool's outcome becomes an MCP `CallToolResult`. Failures are raised as error results
 * (`isError: true`) whose text is `Error executing tool <name>: bridge.<code>: <message>`, with the code
 * and HTTP status also in `_meta`; they never carry `structuredContent` (clients validate it).
 */
import type { CallToolResult } from "./wireTypes.ts"
import { type BridgeError, errorCode, errorStatus, errorText } from "../../domain/errors.ts"

export const ERROR_META_KEY = "agent-bridge/error"

export const toolErrorResult = (toolName: string, e: BridgeError): CallToolResult => ({
  isError: true,
  content: [{ type: "text", text: `Error executing tool ${toolName}: ${errorText(e)}` }],
  _meta: { [ERROR_META_KEY]: { code: errorCode(e), status: errorStatus(e) } }
})

/** `text`: the answer's JSON, when the caller has it already. */
export const toolSuccessResult = (encoded: unknown, text: string = JSON.stringify(encoded)): CallToolResult => ({
  content: [{ type: "text", text }],
  structuredContent: encoded as Record<string, unknown>
})
