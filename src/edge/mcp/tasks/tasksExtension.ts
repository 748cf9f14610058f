/**
 * The Tasks extension on the agents server, 2026-07-28 only: `agent_run` (directly, or as the one
 * call of a compact catalog's `tool_call`) answers a `CreateTaskResult` to a request that declares
 * the extension, `tasks/get` / `tasks/update` / `tasks/cancel` follow the run, and a listen with
 * `taskIds` hears its changes (`taskListen.ts`). A request that does not declare it, and every
 * 2025-era request, is served exactly as before: nothing here runs.
 */
import type { Server, ServerContext } from "@modelcontextprotocol/server"
import { Deferred, Effect, Either, Exit, FiberId, Schema, Stream } from "effect"
import type { RunView } from "../../../domain/runs/view.ts"
import { Caller, type CallerShape } from "../../../request/Caller.ts"
import { NO_PROGRESS, Progress } from "../../../request/Progress.ts"
import { asRequest } from "../../runner.ts"
import { Runs } from "../../../services/runs/Runs.ts"
import type { ToolDef } from "../ToolDef.ts"
import type { CallToolResult } from "../wireTypes.ts"
import { syncStandardSchema } from "./standardSchema.ts"
import { declaresTasks, invalidParams, missingCapability, TASKS_EXTENSION_ID } from "./protocol.ts"
import { cancelTask, getTask, protocolErrorOf, taskOfView, type TaskProgram, type TaskRunner, updateTask } from "./taskMethods.ts"
import { heldStream, type StreamHolder } from "../../sse.ts"
import { listenFrames, missingCapabilityResponse, taskListenRequest } from "./taskListen.ts"
import { createTaskResult } from "./taskOfRun.ts"

export { TASKS_EXTENSION_ID } from "./protocol.ts"

/** What a task request runs with: the request's context decides the caller (the edge's identity). */
export type TaskRunnerFor = (ctx: ServerContext) => TaskRunner

export interface TasksBridge {
  /** The extension's capability and methods, on a 2026-07-28 agents server. */
  readonly attach: (server: Server) => void
  /**
   * When this `tools/call` is to be answered with a task: the arguments to run the tool with, and
   * how its answer becomes the task. `undefined`: an ordinary call.
   */
  readonly taskCall: (tool: ToolDef, args: unknown, ctx: ServerContext) => TaskCall | undefined
  /**
   * A `subscriptions/listen` body that asks for task notifications: the stream that serves it (or
   * the -32021 refusal). `undefined`: any other body, which the SDK serves. `holder`: the key the
   * request came with (its revocation ends the stream); `serve` runs the frames in the daemon's
   * runtime as the response's body.
   */
  readonly listen: (body: unknown, caller: CallerShape, holder: StreamHolder, serve: ServeFrames) => Response | undefined
  /** Ends every open task stream (shutdown). */
  readonly closeStreams: () => void
}

/** Serves a held stream's frames in the daemon's runtime as the SSE response; cancelling its body interrupts them. */
export type ServeFrames = (frames: Stream.Stream<string, never, any>) => Response

export interface TaskCall {
  readonly args: unknown
  readonly answer: (result: CallToolResult) => unknown
}

/**
 * The task methods' params, as a Standard Schema the SDK validates each request with. Effect's own
 * `Schema.standardSchemaV1` starts a fiber (with a scheduler of its own) per validation; this
 * schema is synchronous, so its decoder is compiled once and answers in place.
 */
const TaskIdParams = syncStandardSchema(Schema.Struct({ taskId: Schema.String }))

type Json = Record<string, unknown>
const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

/** The run view of a successful `agent_run` answer; `undefined` for an error (answered as it is). */
const startedRun = (result: CallToolResult): RunView | undefined => {
  if (result.isError === true || !isObject(result.structuredContent)) return undefined
  const view = result.structuredContent
  return typeof view["run_id"] === "string" && typeof view["status"] === "string" ? (view as unknown as RunView) : undefined
}

/** The one `agent_run` call of a `tool_call`, when that is all the batch holds. */
const singleAgentRun = (args: unknown): Json | undefined => {
  const calls = isObject(args) ? args["calls"] : undefined
  if (!Array.isArray(calls) || calls.length !== 1) return undefined
  const only: unknown = calls[0]
  return isObject(only) && only["name"] === "agent_run" ? only : undefined
}

/** The `agent_run` answer inside a `tool_call` answer (`{results: [{name, result}]}`). */
const innerResult = (result: CallToolResult): CallToolResult | undefined => {
  const sc = result.isError === true ? undefined : result.structuredContent
  const results = isObject(sc) ? sc["results"] : undefined
  const first: unknown = Array.isArray(results) ? results[0] : undefined
  return isObject(first) && isObject(first["result"]) ? (first["result"] as unknown as CallToolResult) : undefined
}

export const makeTasksBridge = (runnerFor: TaskRunnerFor, retentionMs: number): TasksBridge => {
  const asTask = (result: CallToolResult, inner: CallToolResult | undefined = result): unknown => {
    const view = inner === undefined ? undefined : startedRun(inner)
    return view === undefined ? result : createTaskResult(view, retentionMs)
  }

  const taskCall: TasksBridge["taskCall"] = (tool, args, ctx) => {
    if (tool.name === "agent_run") {
      if (!declaresTasks(ctx)) return undefined
      return { args, answer: (result) => asTask(result) }
    }
    if (tool.name === "tool_call") {
      const call = singleAgentRun(args)
      if (call === undefined || !declaresTasks(ctx)) return undefined
      return { args, answer: (result) => asTask(result, innerResult(result)) }
    }
    return undefined
  }

  /** Runs a method's program for the request; a bridge error becomes the spec's protocol error. */
  const serve = async <A>(ctx: ServerContext, verb: "retrieve" | "update" | "cancel", program: TaskProgram<A>): Promise<A> => {
    if (!declaresTasks(ctx)) throw missingCapability()
    const outcome = await runnerFor(ctx)(program)
    if (Either.isLeft(outcome)) throw protocolErrorOf(outcome.left, verb)
    return outcome.right
  }

  const attach = (server: Server) => {
    server.registerCapabilities({ extensions: { [TASKS_EXTENSION_ID]: {} } })
    server.setRequestHandler("tasks/get", { params: TaskIdParams }, async (params, ctx) =>
      ({ ...(await serve(ctx, "retrieve", getTask(params.taskId, retentionMs))) }) as any)
    // The SDK lifts `inputResponses` out of the params, as for any 2026-07-28 request (multi
    // round-trip requests), and drops entries that are not responses; the handler reads what is left.
    server.setRequestHandler("tasks/update", { params: TaskIdParams }, async (params, ctx) => {
      const responses = (ctx.mcpReq as { inputResponses?: Record<string, unknown> }).inputResponses
      if (responses === undefined && declaresTasks(ctx)) throw invalidParams("tasks/update needs inputResponses")
      await serve(ctx, "update", updateTask(params.taskId, responses ?? {}))
      return {} as any
    })
    server.setRequestHandler("tasks/cancel", { params: TaskIdParams }, async (params, ctx) => {
      await serve(ctx, "cancel", cancelTask(params.taskId))
      return {} as any
    })
  }

  const streams = new Set<() => void>()
  const listen: TasksBridge["listen"] = (body, caller, holder, serve) => {
    const req = taskListenRequest(body)
    if (req === undefined) return undefined
    if (!req.declared) return missingCapabilityResponse(req.id)
    const read = (taskId: string) =>
      asRequest(getTask(taskId, retentionMs), { caller })
    const watch = (taskId: string) =>
      Stream.unwrap(Effect.map(Runs, (runs) => runs.watch(taskId))).pipe(
        Stream.mapEffect((view) => taskOfView(view, retentionMs)),
        Stream.provideService(Caller, caller),
        Stream.provideService(Progress, NO_PROGRESS)
      )
    // The held stream ends it when its key is revoked or rotated; `closeStreams` at shutdown.
    const closed = Deferred.unsafeMake<void>(FiberId.none)
    const stop = () => void Deferred.unsafeDone(closed, Exit.void)
    streams.add(stop)
    const frames = heldStream({ frames: listenFrames(req, read, watch), holder }).pipe(
      Stream.interruptWhen(Deferred.await(closed)),
      Stream.ensuring(Effect.sync(() => streams.delete(stop)))
    )
    return serve(frames)
  }
  const closeStreams = () => {
    for (const stop of [...streams]) stop()
    streams.clear()
  }

  return { attach, taskCall, listen, closeStreams }
}

