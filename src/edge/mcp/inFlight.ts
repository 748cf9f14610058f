/**
 * The tool calls in flight on the MCP edge, so that they can be ended from outside: a call whose key
 * is revoked or rotated answers `auth.forbidden`, and at shutdown every call answers
 * `bridge.unavailable` before the connections close (a wait would otherwise be cut mid-answer). An
 * ended call's program is interrupted, which ends a wait but never the run it waits on.
 *
 * Each call is one fiber of the daemon's runtime, kept with its identity. Ending it interrupts that
 * fiber and answers the error instead. (A race of the program against a `Deferred` did the same
 * with two more fibers and an interruption on every call: the larger part of a no-op call's cost.)
 */
import { Duration, Effect, Exit, type Fiber, FiberId, Runtime, Schedule } from "effect"
import { type BridgeError, Unavailable } from "../../domain/errors.ts"
import type { RequestIdentity } from "./mcpServer.ts"
import { toolErrorResult } from "./toolResult.ts"
import type { CallToolResult } from "./wireTypes.ts"

interface Call {
  readonly identity: RequestIdentity
  /** Interrupts the call's fiber; its answer is then `ended`. */
  readonly end: (error: BridgeError) => void
}

/** How long shutdown waits for the ended calls' answers to be handed to the transport. */
const DRAIN_LIMIT = Duration.seconds(2)
/** Then this long for the last bytes to leave (the SDK closes each call's stream after its answer). */
const FLUSH_MS = 100

const unavailable = new Unavailable({ message: "the bridge is shutting down; retry shortly" })

export const makeInFlight = Effect.sync(() => {
  const calls = new Set<Call>()
  let draining = false

  /**
   * Runs one call's program in its own fiber (started in `runtime`); it answers the error it is
   * ended with, if it is ended first. `signal` (the request's cancellation) interrupts it too; the
   * answer of a cancelled request is never sent, so it is a rejection.
   */
  const run = <R>(program: Effect.Effect<CallToolResult, never, R>, runtime: Runtime.Runtime<R>, toolName: string, identity: RequestIdentity, signal?: AbortSignal) =>
    new Promise<CallToolResult>((resolve, reject) => {
      if (draining) return resolve(toolErrorResult(toolName, unavailable))
      if (signal?.aborted === true) return reject(new Error("the request was cancelled"))
      let ended: BridgeError | undefined
      const fiber: Fiber.RuntimeFiber<CallToolResult> = Runtime.runFork(runtime)(program)
      const call: Call = {
        identity,
        end: (error) => {
          ended ??= error
          fiber.unsafeInterruptAsFork(FiberId.none)
        }
      }
      const onAbort = () => fiber.unsafeInterruptAsFork(FiberId.none)
      calls.add(call)
      signal?.addEventListener("abort", onAbort, { once: true })
      fiber.addObserver((exit) => {
        calls.delete(call)
        signal?.removeEventListener("abort", onAbort)
        if (ended !== undefined) resolve(toolErrorResult(toolName, ended))
        else if (Exit.isSuccess(exit)) resolve(exit.value)
        else reject(new Error("the tool call was interrupted"))
      })
    })

  /** Waits (bounded) until `ended` have all answered, then a moment for the answers to leave. */
  const settled = (ended: ReadonlyArray<Call>) =>
    Effect.sync(() => ended.every((c) => !calls.has(c))).pipe(
      Effect.repeat({ until: (done) => done, schedule: Schedule.spaced(Duration.millis(10)) }),
      Effect.timeout(DRAIN_LIMIT),
      Effect.ignore,
      Effect.zipRight(ended.length === 0 ? Effect.void : Effect.sleep(Duration.millis(FLUSH_MS)))
    )

  /**
   * Ends every call whose identity `shouldEnd` picks, with `error`, and waits for their answers to
   * leave (so that a session closed next does not cut them).
   */
  const endWhere = <E, R2>(shouldEnd: (identity: RequestIdentity) => Effect.Effect<boolean, E, R2>, error: BridgeError) =>
    Effect.gen(function* () {
      const ended = yield* Effect.filter([...calls], (call) => shouldEnd(call.identity))
      for (const call of ended) call.end(error)
      yield* settled(ended)
    })

  const drain = Effect.gen(function* () {
    draining = true
    const open = [...calls]
    for (const call of open) call.end(unavailable)
    yield* settled(open)
  })

  return { run, endWhere, drain, size: () => calls.size }
})
