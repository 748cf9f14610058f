/**
 * Runs one tool call: decode → handler (with the caller and progress as services) → encode. Every
 * outcome is a `CallToolResult`; a defect becomes `bridge.internal` whose cause is logged under an
 * incident id that is the only thing sent back. An error's text goes through the Redactor: it can
 * quote Hermes's own error message (`bridge.agent_refused`), which may hold a provider's key.
 */
import type { CallToolResult } from "./wireTypes.ts"
import { Cause, Context, Effect, FiberId, FiberRef, FiberRefs, HashMap, Option, Runtime, Schema } from "effect"
import { type BridgeError, isBridgeError } from "../../domain/errors.ts"
import { logIncident } from "../../common/incident.ts"
import { makeRedaction } from "../../domain/redact/redact.ts"
import { Caller, type CallerShape } from "../../request/Caller.ts"
import { Progress, type ProgressShape } from "../../request/Progress.ts"
import { NO_PROGRESS } from "./progress.ts"
import { Redactor } from "../../common/Redactor.ts"
import { decodeArgs } from "./decodeArgs.ts"
import { ERROR_META_KEY, toolErrorResult, toolSuccessResult } from "./toolResult.ts"
import { withMetrics } from "../../common/Metrics.ts"
import type { ToolDef } from "./ToolDef.ts"

/** "ok", or the `bridge.*` code an error result carries in its `_meta`. */
const resultCode = (result: CallToolResult): string => {
  if (result.isError !== true) return "ok"
  const meta = result._meta?.[ERROR_META_KEY] as { code?: unknown } | undefined
  return typeof meta?.code === "string" ? meta.code : "error"
}

/** The rules without the held secrets, for a tool run where no Redactor is provided (the daemon always provides one). */
const rulesOnly = makeRedaction([])

/** The error result for `e`, its text masked by the Redactor. */
const redactedErrorResult = (toolName: string, e: BridgeError): Effect.Effect<CallToolResult> =>
  Effect.map(Effect.serviceOption(Redactor), (redactor) => {
    const text = Option.match(redactor, { onNone: () => (s: string) => rulesOnly.text(s, false), onSome: (r) => (s: string) => r.text(s) })
    const result = toolErrorResult(toolName, e)
    return { ...result, content: result.content.map((c) => (c.type === "text" ? { ...c, text: text(c.text) } : c)) }
  })

interface EncodedAnswer {
  readonly encoded: unknown
  readonly text: string
}

/**
 * Answers encoded before, per tool and per answer object. A handler that answers with the very
 * object it answered before (the run service reuses a finished run's view) gets the same encoding
 * and JSON text, made once: both are pure functions of the object, which nothing mutates. Held
 * weakly, so an answer is kept no longer than its service keeps the object.
 */
const encodedAnswers = new WeakMap<ToolDef<any, any, any>, WeakMap<object, EncodedAnswer>>()

const encodeAnswer = (tool: ToolDef<any, any, any>, out: unknown): Effect.Effect<CallToolResult> => {
  // Schema encodes a synchronous schema as soon as asked (into an Either): asked only on a miss.
  const encode = Effect.suspend(() => Effect.orDie(Schema.encode(tool.output)(out)))
  if (typeof out !== "object" || out === null) return Effect.map(encode, (encoded) => toolSuccessResult(encoded))
  let kept = encodedAnswers.get(tool)
  if (kept === undefined) encodedAnswers.set(tool, (kept = new WeakMap()))
  const hit = kept.get(out)
  if (hit !== undefined) return Effect.succeed(toolSuccessResult(hit.encoded, hit.text))
  return Effect.map(encode, (encoded) => {
    const answer = { encoded, text: JSON.stringify(encoded) }
    kept.set(out, answer)
    return toolSuccessResult(answer.encoded, answer.text)
  })
}

/**
 * One call's program: decode, handler, encode, errors as results, the call counted. It reads
 * `Caller` and `Progress` from its context: `runTool` provides them, and the edge starts each call
 * in a fiber that has them already (`callRuntime`), which costs less than providing them.
 */
export const toolProgram = <R>(tool: ToolDef<any, any, R>, args: unknown): Effect.Effect<CallToolResult, never, R | Caller | Progress> =>
  decodeArgs(tool, args).pipe(
    Effect.flatMap((input) => tool.handler(input)),
    Effect.flatMap((out) => encodeAnswer(tool, out)),
    Effect.catchAllCause((cause) => {
      const failure = Cause.failureOption(cause)
      if (failure._tag === "Some" && isBridgeError(failure.value)) {
        return redactedErrorResult(tool.name, failure.value)
      }
      if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
      return Effect.map(logIncident("tool call failed", cause), (internal) => toolErrorResult(tool.name, internal))
    }),
    Effect.tap((result) => withMetrics((m) => m.mcpRequest(tool.name, resultCode(result))))
  ) as Effect.Effect<CallToolResult, never, R | Caller | Progress>

/** Log lines of a call carry its tool and client. */
const callAnnotations = (toolName: string, caller: CallerShape) => ({ tool: toolName, client: caller.client })

export const runTool = <R>(
  tool: ToolDef<any, any, R>,
  args: unknown,
  caller: CallerShape,
  progress: ProgressShape
): Effect.Effect<CallToolResult, never, Exclude<R, Caller | Progress>> =>
  toolProgram(tool, args).pipe(
    Effect.provideService(Caller, caller),
    Effect.provideService(Progress, progress),
    // No span: the bridge exports no traces, and a span (with its captured stack) cost every call.
    Effect.annotateLogs(callAnnotations(tool.name, caller))
  ) as Effect.Effect<CallToolResult, never, Exclude<R, Caller | Progress>>

/**
 * The runtime a call's fiber starts in: `runtime` with the call's `Caller` and `Progress` in its
 * context and its log annotations set, what `runTool` provides, without an extra step per service.
 */
const makeCallRuntime = <R>(runtime: Runtime.Runtime<R>, toolName: string, caller: CallerShape, progress: ProgressShape): Runtime.Runtime<R | Caller | Progress> => {
  let annotations = FiberRefs.getOrDefault(runtime.fiberRefs, FiberRef.currentLogAnnotations)
  for (const [key, value] of Object.entries(callAnnotations(toolName, caller))) annotations = HashMap.set(annotations, key, value)
  return Runtime.make({
    context: Context.merge(runtime.context, Context.make(Caller, caller).pipe(Context.add(Progress, progress))),
    fiberRefs: FiberRefs.updateAs(runtime.fiberRefs, { fiberId: FiberId.none, fiberRef: FiberRef.currentLogAnnotations, value: annotations }),
    runtimeFlags: runtime.runtimeFlags
  })
}

/**
 * Call runtimes made before, for calls without progress (most): per daemon runtime, caller and tool.
 * A runtime is immutable, and the caller is the object `Auth` remembers for a key (a new key, or a
 * key read again after a forget, is a new object), so a kept one is exactly what would be made; held
 * weakly by both, so it lives no longer than they do. Merging the daemon's context and setting the
 * annotations was ~6 µs of every call.
 */
const callRuntimes = new WeakMap<Runtime.Runtime<any>, WeakMap<CallerShape, Map<string, Runtime.Runtime<any>>>>()

export const callRuntime = <R>(runtime: Runtime.Runtime<R>, toolName: string, caller: CallerShape, progress: ProgressShape): Runtime.Runtime<R | Caller | Progress> => {
  if (progress !== NO_PROGRESS) return makeCallRuntime(runtime, toolName, caller, progress)
  let byCaller = callRuntimes.get(runtime)
  if (byCaller === undefined) callRuntimes.set(runtime, (byCaller = new WeakMap()))
  let byTool = byCaller.get(caller)
  if (byTool === undefined) byCaller.set(caller, (byTool = new Map()))
  let kept = byTool.get(toolName)
  if (kept === undefined) byTool.set(toolName, (kept = makeCallRuntime(runtime, toolName, caller, progress)))
  return kept
}
