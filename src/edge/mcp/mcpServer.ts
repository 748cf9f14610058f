/**
 * One SDK server for one of the two MCP servers (`hal0-agents`, `hal0-memory`), the same for both
 * protocol eras: `tools/list` and `tools/call` read the per-client catalog with the caller of the
 * request being served (set by the edge from the request's own key, never from the session), and the
 * agents server offers the profile's skills through the skills extension as well.
 */
import { McpServer, ProtocolError, ProtocolErrorCode, Server } from "@modelcontextprotocol/server"
import type { Effect } from "effect"
import type { ProgressShape } from "../../request/Progress.ts"
import type { Catalog, ServerKind } from "./catalog/listing.ts"
import { SERVER_INSTRUCTIONS } from "./instructions.ts"
import { progressFor } from "./progress.ts"
import { toolProgram } from "./runTool.ts"
import type { SkillsBridge } from "./skillsExtension.ts"
import type { TasksBridge } from "./tasks/tasksExtension.ts"
import type { ToolDef } from "./ToolDef.ts"
import type { CallToolResult } from "./wireTypes.ts"
import { authInfoFor, identityOf, type RequestIdentity } from "./identity.ts"

export { authInfoFor, identityOf, type RequestIdentity }

export const SERVER_NAMES: Record<ServerKind, string> = { agents: "hal0-agents", memory: "hal0-memory" }
export const SERVER_VERSION = "0.1.0"

/**
 * Runs a tool call's program for a request, with the caller and progress in its context: the edge
 * adds the revocation and shutdown guards.
 */
export type ToolRunner = (
  program: Effect.Effect<CallToolResult, never, any>,
  toolName: string,
  identity: RequestIdentity,
  progress: ProgressShape,
  signal: AbortSignal
) => Promise<CallToolResult>

export interface ServerDeps {
  readonly catalog: Catalog
  readonly runCall: ToolRunner
  readonly skills?: SkillsBridge
  readonly tasks?: TasksBridge
}

export interface ServerSurface {
  /** Serve the skills extension too (the agents server only). Default true. */
  readonly skills?: boolean
  /**
   * Serve the Tasks extension too (the agents server only): 2026-07-28 instances only, since it is
   * advertised in `server/discover` and never at a 2025 `initialize`. Default false.
   */
  readonly tasks?: boolean
}

/** The two tool methods, on the low-level server, reading the per-client catalog with the request's caller. */
const serveTools = (server: Server, kind: ServerKind, deps: ServerDeps, tasks: TasksBridge | undefined) => {
  server.setRequestHandler("tools/list", async (_req, ctx) => ({
    tools: [...deps.catalog.list(kind, identityOf(ctx).caller)] as any
  }))
  server.setRequestHandler("tools/call", async (req, ctx) => {
    const identity = identityOf(ctx)
    const tool = deps.catalog.find(kind, identity.caller, req.params.name)
    // The SDK sends the message as it stands (no code prefix), so clients show it once.
    if (tool === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${req.params.name}`)
    const progress = progressFor(req.params._meta?.progressToken, (n) => ctx.mcpReq.notify(n))
    // A run started for a client that takes tasks is answered as one (tasks/tasksExtension.ts).
    const task = tasks?.taskCall(tool, req.params.arguments, ctx)
    const program = toolProgram(tool as ToolDef<any, any, any>, task === undefined ? req.params.arguments : task.args)
    const result = await deps.runCall(program, tool.name, identity, progress, ctx.mcpReq.signal)
    return (task === undefined ? result : task.answer(result)) as any
  })
}

/**
 * The SDK server for one serving unit (a 2026-07-28 request, or a 2025-era session). Tools are
 * served by the SDK's low-level `Server`: the bridge answers `tools/list` and `tools/call` itself,
 * from its catalog, so `McpServer`'s own tool machinery (built, then replaced, on every request)
 * was pure cost. Only the skills extension needs an `McpServer` (it registers a resource
 * template), so the agents server is one when it offers that surface.
 */
export const makeMcpServer = (kind: ServerKind, deps: ServerDeps, surface: ServerSurface = {}): McpServer | Server => {
  const info = { name: SERVER_NAMES[kind], version: SERVER_VERSION }
  // `listChanged: true` is what McpServer has always declared for tools; both kinds declare it.
  const options = { capabilities: { tools: { listChanged: true } }, instructions: SERVER_INSTRUCTIONS[kind] }
  const tasks = kind === "agents" && surface.tasks === true ? deps.tasks : undefined
  if (kind !== "agents" || deps.skills === undefined || surface.skills === false) {
    const server = new Server(info, options)
    serveTools(server, kind, deps, tasks)
    tasks?.attach(server)
    return server
  }
  const mcp = new McpServer(info, options)
  serveTools(mcp.server, kind, deps, tasks)
  tasks?.attach(mcp.server)
  deps.skills.attach(mcp)
  return mcp
}
