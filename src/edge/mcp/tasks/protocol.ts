/**
 * The wire of the MCP Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663,
 * modelcontextprotocol/ext-tasks `specification/draft/tasks.md`) as far as the bridge speaks it:
 * the identifier, how a 2026-07-28 request declares it, the task shapes and the protocol errors.
 * The SDK 2.4 has no Tasks helper (typescript-sdk #2189): when it ships one, it replaces this
 * folder and the two files that wire it in (`../mcpServer.ts`: a run answered as a task, the
 * `tasks/*` handlers; `../McpSessions.ts`: the bridge, the listen's held stream).
 */
import { CLIENT_CAPABILITIES_META_KEY, ProtocolError, ProtocolErrorCode, type ServerContext } from "@modelcontextprotocol/server"

export const TASKS_EXTENSION_ID = "io.modelcontextprotocol/tasks"

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled"

/** `Task` with its status payload inlined (`DetailedTask`): what tasks/get and notifications/tasks carry. */
export interface DetailedTask {
  readonly taskId: string
  readonly status: TaskStatus
  readonly statusMessage?: string
  readonly createdAt: string
  readonly lastUpdatedAt: string
  readonly ttlMs: number | null
  readonly pollIntervalMs?: number
  readonly inputRequests?: Record<string, unknown>
  readonly result?: Record<string, unknown>
  readonly error?: Record<string, unknown>
}

/**
 * Whether this request declared the extension in its per-request capabilities. Only a 2026-07-28
 * request has an envelope; a 2025-era request (a session) never declares it, whatever it sent at
 * `initialize`, so it always gets today's answers.
 */
export const declaresTasks = (ctx: ServerContext): boolean => {
  const envelope = (ctx.mcpReq as { envelope?: Record<string, unknown> }).envelope
  const caps = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined
  const declared = caps?.extensions?.[TASKS_EXTENSION_ID]
  return typeof declared === "object" && declared !== null
}

/** `-32021`: the task methods (and task notifications) are for clients that declare the extension. */
export const missingCapability = () =>
  new ProtocolError(ProtocolErrorCode.MissingRequiredClientCapability, "Missing required client capability", {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } }
  })

/** `-32602`: an unknown task id, another client's (the same answer) and a swept (expired) one. */
export const taskNotFound = (verb: "retrieve" | "update" | "cancel") =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, `Failed to ${verb} task: Task not found`)

export const invalidParams = (message: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, message)

export const internalError = (message: string) => new ProtocolError(ProtocolErrorCode.InternalError, message)
