/**
 * What a fuzzed `tools/call` may answer, decided from the case alone:
 * - `arguments` that are not a JSON object break MCP's own request shape: a JSON-RPC error from the
 *   SDK naming `params.arguments`, before any tool runs (see `judge`);
 * - a tool name this caller cannot call: JSON-RPC -32602 "Unknown tool";
 * - anything else: a tool result (the SDK's `CallToolResultSchema` holds). An error result reads
 *   `Error executing tool <name>: <code>: <message>`, its code is in the error table and is never
 *   `bridge.internal`, and `_meta` carries the same code. Arguments the tool's schema rejects get
 *   `bridge.invalid_input` or the tool's own refusal code, with a message that names a field at
 *   fault; arguments it accepts never come back as a success they should not have had.
 * `tool_call` results are judged again, call by call, under the inner tool's name.
 */
import { specTypeSchemas } from "@modelcontextprotocol/client"
import { Either, ParseResult, Schema } from "effect"
import { ErrorTable } from "../../../src/domain/errors.ts"
import { ERROR_META_KEY } from "../../../src/edge/mcp/toolResult.ts"
import type { ToolDef } from "../../../src/edge/mcp/ToolDef.ts"
import type { FuzzCase } from "./cases.ts"
import type { Answer } from "./wire.ts"

/** The SDK's own schema check of one MCP type (synchronous: the schemas have no async parts). */
const validated = (type: "CallToolResult" | "CallToolRequest", value: unknown): { success: true; value: unknown } | { success: false; message: string } => {
  const out = specTypeSchemas[type]["~standard"].validate(value)
  if (out instanceof Promise) throw new Error("the SDK's schema check went asynchronous")
  return out.issues === undefined ? { success: true, value: out.value } : { success: false, message: out.issues.map((i) => i.message).join("; ") }
}

const KNOWN_CODES = new Set(Object.values(ErrorTable).map((row) => row.code))
/** The codes a tool may use for arguments its schema rejects (decodeArgs plus each tool's mapper). */
const DECODE_CODES = new Set(["bridge.invalid_input", "bridge.memory_invalid", "bridge.skill_invalid", "bridge.invalid_offset"])

export type Outcome = `ok` | `refused ${string}` | `protocol ${string}`

export interface Verdict {
  readonly outcome: Outcome
  /** Undefined when the answer is what the case allows. */
  readonly problem?: string
}

const parseArgs = (args: string | undefined): unknown => (args === undefined ? undefined : JSON.parse(args))

const isPlainObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The top-level keys an issue tree points at ("arguments" for the value as a whole). */
const topKeys = (issue: ParseResult.ParseIssue): ReadonlyArray<string> => {
  switch (issue._tag) {
    case "Pointer":
      return [String(Array.isArray(issue.path) ? issue.path[0] : issue.path)]
    case "Composite":
      return (Array.isArray(issue.issues) ? issue.issues : [issue.issues as ParseResult.ParseIssue]).flatMap(topKeys)
    case "Refinement":
    case "Transformation":
      return topKeys(issue.issue)
    default:
      return ["arguments"]
  }
}

/** Names of the fields at fault in a rejected input (read from the issue tree, formatting nothing). */
const faultyFields = (tool: ToolDef, args: unknown): ReadonlyArray<string> | undefined => {
  const decoded = Schema.decodeUnknownEither(tool.input, { errors: "all", onExcessProperty: "error" })(args ?? {})
  return Either.isRight(decoded) ? undefined : topKeys(decoded.left.issue)
}

/** Judges one tool result under `toolName` (also used for each result inside `tool_call`). */
export const judgeResult = (
  tool: ToolDef,
  args: unknown,
  result: Record<string, unknown>,
  lookup: (name: string) => ToolDef | undefined
): Verdict => {
  const parsed = validated("CallToolResult", result)
  if (!parsed.success) return { outcome: "ok", problem: `not a CallToolResult: ${parsed.message.slice(0, 300)}` }
  const faulty = faultyFields(tool, args)
  if (result["isError"] !== true) {
    if (faulty !== undefined) return { outcome: "ok", problem: `accepted input its schema rejects (fields ${faulty.join(", ")})` }
    if (!isPlainObject(result["structuredContent"])) return { outcome: "ok", problem: "success without structuredContent" }
    if (tool.name !== "tool_call") return { outcome: "ok" }
    const calls = (args as { calls: ReadonlyArray<{ name: string; arguments?: unknown }> }).calls
    const results = (result["structuredContent"] as { results: ReadonlyArray<{ name: string; result: Record<string, unknown> }> }).results
    if (results.length !== calls.length) return { outcome: "ok", problem: `tool_call answered ${results.length} of ${calls.length} calls` }
    for (const [i, r] of results.entries()) {
      const inner = lookup(r.name)
      if (inner === undefined) return { outcome: "ok", problem: `tool_call ran unknown tool ${r.name}` }
      const v = judgeResult(inner, calls[i]!.arguments, r.result, lookup)
      if (v.problem !== undefined) return { outcome: v.outcome, problem: `in tool_call → ${r.name}: ${v.problem}` }
    }
    return { outcome: "ok" }
  }
  const text = ((result["content"] as ReadonlyArray<{ text?: string }> | undefined) ?? []).map((c) => c.text ?? "").join("")
  const meta = (result["_meta"] as Record<string, { code?: string }> | undefined)?.[ERROR_META_KEY]
  const code = meta?.code ?? "(no code in _meta)"
  const outcome: Outcome = `refused ${code}`
  const prefix = `Error executing tool ${tool.name}: ${code}: `
  if (code === "bridge.internal") return { outcome, problem: `bridge.internal: ${text.slice(0, 300)}` }
  if (!KNOWN_CODES.has(code)) return { outcome, problem: `unknown error code ${code}` }
  if (!text.startsWith(prefix)) return { outcome, problem: `error text does not read '${prefix}…': ${text.slice(0, 200)}` }
  const message = text.slice(prefix.length)
  if (message.trim().length < 8) return { outcome, problem: `error message says nothing: '${message}'` }
  if (result["structuredContent"] !== undefined) return { outcome, problem: "error result carries structuredContent" }
  if (faulty !== undefined) {
    if (!DECODE_CODES.has(code)) return { outcome, problem: `schema-rejected input answered ${code}` }
    // The message must name a field at fault; long names are cut in messages, so their start suffices.
    if (!faulty.some((f) => message.includes(f.slice(0, 40)))) {
      return { outcome, problem: `refusal names none of the faulty fields (${faulty.slice(0, 3).map((f) => f.slice(0, 40)).join(", ")}): ${message.slice(0, 200)}` }
    }
  }
  return { outcome }
}

/**
 * The arguments a tool receives: the SDK parses each request with MCP's zod schema first, which
 * copies `arguments` key by key (an own `__proto__` key sets the copy's prototype and is gone).
 */
const argumentsSeen = (name: string, args: unknown): unknown => {
  const parsed = validated("CallToolRequest", { method: "tools/call", params: { name, arguments: args } })
  return parsed.success ? (parsed.value as { params: { arguments?: unknown } }).params.arguments : args
}

/** Judges the answer to one case sent to a server where `lookup` finds what this caller may call. */
export const judge = (c: FuzzCase, answer: Answer, lookup: (name: string) => ToolDef | undefined): Verdict => {
  const args = parseArgs(c.args)
  const tool = lookup(c.tool)
  const badParams = args !== undefined && !isPlainObject(args)
  if (answer._tag === "http-error") return { outcome: `protocol http ${answer.status}`, problem: `HTTP ${answer.status}: ${answer.body.slice(0, 300)}` }
  if (answer._tag === "rpc-error") {
    const outcome: Outcome = `protocol ${answer.code}`
    if (badParams) {
      // The SDK checks the request against MCP's schema (zod) before any handler runs. Its own
      // "Invalid params" check for tools/call comes after that parse, so it answers -32603 with the
      // zod issue; either code is accepted as long as the message points at `arguments`.
      const named = answer.message.includes('"arguments"') && answer.message.includes("expected record")
      return (answer.code === -32603 || answer.code === -32602) && named
        ? { outcome }
        : { outcome, problem: `expected a JSON-RPC error naming params.arguments, got ${answer.code} '${answer.message.slice(0, 200)}'` }
    }
    if (tool === undefined) {
      return answer.code === -32602 && answer.message.includes("Unknown tool: ")
        ? { outcome }
        : { outcome, problem: `expected -32602 'Unknown tool', got ${answer.code} '${answer.message.slice(0, 200)}'` }
    }
    return { outcome, problem: `JSON-RPC error ${answer.code} for a tool-level fault: ${answer.message.slice(0, 300)}` }
  }
  if (badParams) return { outcome: "ok", problem: "non-object arguments reached a tool" }
  if (tool === undefined) return { outcome: "ok", problem: "an unknown tool answered" }
  return judgeResult(tool, argumentsSeen(c.tool, args), answer.result, lookup)
}
