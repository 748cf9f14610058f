/**
 * Runs one tool call: decode → handler (with the caller and progress as services) → encode. Every
 * outcome is a `CallToolResult`; a defect becomes `bridge.internal` whose cause is logged under an
 * incident id that is the only thing sent back.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Cause, Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { Internal, isBridgeError } from "../../domain/errors.ts"
import { Caller, type CallerShape } from "../../services/Caller.ts"
import { Progress, type ProgressShape } from "../../services/Progress.ts"
import { decodeArgs } from "./decodeArgs.ts"
import { toolErrorResult, toolSuccessResult } from "./toolResult.ts"
import type { ToolDef } from "./ToolDef.ts"

export const newIncident = () => `inc_${randomUUID().replace(/-/g, "").slice(0, 16)}`

export const runTool = <R>(
  tool: ToolDef<any, any, R>,
  args: unknown,
  caller: CallerShape,
  progress: ProgressShape
): Effect.Effect<CallToolResult, never, Exclude<R, Caller | Progress>> =>
  decodeArgs(tool, args).pipe(
    Effect.flatMap((input) => tool.handler(input)),
    Effect.flatMap((out) => Effect.orDie(Schema.encode(tool.output)(out))),
    Effect.map(toolSuccessResult),
    Effect.catchAllCause((cause) => {
      const failure = Cause.failureOption(cause)
      if (failure._tag === "Some" && isBridgeError(failure.value)) {
        return Effect.succeed(toolErrorResult(tool.name, failure.value))
      }
      if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
      const incident = newIncident()
      return Effect.logError("tool call failed", cause).pipe(
        Effect.annotateLogs({ incident }),
        Effect.as(toolErrorResult(tool.name, new Internal({ incident })))
      )
    }),
    Effect.provideService(Caller, caller),
    Effect.provideService(Progress, progress),
    Effect.annotateLogs({ tool: tool.name, client: caller.client }),
    Effect.withSpan(`mcp.tool.${tool.name}`)
  ) as Effect.Effect<CallToolResult, never, Exclude<R, Caller | Progress>>
