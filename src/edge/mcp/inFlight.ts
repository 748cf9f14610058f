/**
 * The tool calls in flight on the MCP edge, so that they can be ended from outside: a call whose key
 * is revoked or rotated answers `auth.forbidden`, and at shutdown every call answers
 * `bridge.unavailable` before the connections close (a wait would otherwise be cut mid-answer). An
 * ended call's program is interrupted, which ends a wait but never the run it waits on.
 *
 * Each call is one fiber of the daemon's runtime (run by `../runner.ts`), kept with its identity.
 * Ending it interrupts that fiber and answers the error instead; shutdown awaits the ended calls'
 * answers themselves (no poll). (A race of the program against a `Deferred` did the same
 * with two more fibers and an interruption on every call: the larger part of a no-op call's cost.)
 */
import { Duration, Effect, Exit, type Runtime } from "effect"
import { runExit } from "../runner.ts"
import { type BridgeError, Unavailable } from "../../domain/errors.ts"
import type { RequestIdentity } from "./identity.ts"
import { toolErrorResult } from "./toolResult.ts"
import type { CallToolResult } from "./wireTypes.ts"

interface Call {
  readonly identity: RequestIdentity
  /** Interrupts the call's fiber; its answer is then `ended`. */
  readonly end: (error: BridgeError) => void
  /** Settles once the call's answer is handed on (however it ended). */
  readonly answered: Promise<void>
}

/** How long shutdown waits for the ended calls' answers to be handed to the transport. */
const DRAIN_LIMIT = Duration.seconds(2)
/** Then this long for the last bytes to leave (the SDK closes each call's stream after its answer). */
const FLUSH_MS = 100

const unavailable = new Unavailable({ message: "the bridge is shutting down; retry shortly" })
const ignore = () => undefined

export const makeInFlight = Effect.sync(() => {
  const calls = new Set<Call>()
  let draining = false

  /**
   * Runs one call's program in its own fiber (started in `runtime`, by the edge's runner); it
   * answers the error it is ended with, if it is ended first. `signal` (the request's
   * cancellation) interrupts it too; the answer of a cancelled request is never sent, so it is a
   * rejection.
   */
  const run = <R>(program: Effect.Effect<CallToolResult, never, R>, runtime: Runtime.Runtime<R>, toolName: string, identity: RequestIdentity, signal?: AbortSignal): Promise<CallToolResult> => {
    if (draining) return Promise.resolve(toolErrorResult(toolName, unavailable))
    if (signal?.aborted === true) return Promise.reject(new Error("the request was cancelled"))
    let ended: BridgeError | undefined
    // The fiber's one cancellation: the request's, or the call ended from here.
    const stop = new AbortController()
    const onAbort = () => stop.abort()
    signal?.addEventListener("abort", onAbort, { once: true })
    const answer = runExit(runtime, program, stop.signal).then((exit) => {
      calls.delete(call)
      signal?.removeEventListener("abort", onAbort)
      if (ended !== undefined) return toolErrorResult(toolName, ended)
      if (Exit.isSuccess(exit)) return exit.value
      throw new Error("the tool call was interrupted")
    })
    const call: Call = {
      identity,
      end: (error) => {
        ended ??= error
        stop.abort()
      },
      answered: answer.then(ignore, ignore)
    }
    calls.add(call)
    return answer
  }

  /** Waits (bounded) until `ended` have all answered, then a moment for the answers to leave. */
  const settled = (ended: ReadonlyArray<Call>) =>
    Effect.promise(() => Promise.all(ended.map((c) => c.answered))).pipe(
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
