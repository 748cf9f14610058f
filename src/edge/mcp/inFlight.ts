/**
 * The tool calls in flight on the MCP edge, so that they can be ended from outside: a call whose key
 * is revoked or rotated answers `auth.forbidden`, and at shutdown every call answers
 * `bridge.unavailable` before the connections close (a wait would otherwise be cut mid-answer). An
 * ended call's program is interrupted, which ends a wait but never the run it waits on.
 */
import { Deferred, Duration, Effect, Schedule } from "effect"
import { type BridgeError, Unavailable } from "../../domain/errors.ts"
import type { RequestIdentity } from "./mcpServer.ts"
import { toolErrorResult } from "./toolResult.ts"
import type { CallToolResult } from "./wireTypes.ts"

interface Call {
  readonly identity: RequestIdentity
  readonly end: Deferred.Deferred<never, BridgeError>
}

/** How long shutdown waits for the ended calls' answers to be handed to the transport. */
const DRAIN_LIMIT = Duration.seconds(2)
/** Then this long for the last bytes to leave (the SDK closes each call's stream after its answer). */
const FLUSH_MS = 100

const unavailable = new Unavailable({ message: "the bridge is shutting down; retry shortly" })

export const makeInFlight = Effect.sync(() => {
  const calls = new Set<Call>()
  let draining = false

  /** Runs one call's program; it answers the error it is ended with, if it is ended first. */
  const guard = <R>(program: Effect.Effect<CallToolResult, never, R>, toolName: string, identity: RequestIdentity) =>
    Effect.gen(function* () {
      if (draining) return toolErrorResult(toolName, unavailable)
      const call: Call = { identity, end: yield* Deferred.make<never, BridgeError>() }
      calls.add(call)
      return yield* Effect.raceFirst(program, Deferred.await(call.end)).pipe(
        Effect.catchAll((e) => Effect.succeed(toolErrorResult(toolName, e))),
        Effect.ensuring(Effect.sync(() => calls.delete(call)))
      )
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
  const endWhere = <E, R>(shouldEnd: (identity: RequestIdentity) => Effect.Effect<boolean, E, R>, error: BridgeError) =>
    Effect.gen(function* () {
      const ended = yield* Effect.filter([...calls], (call) => shouldEnd(call.identity))
      yield* Effect.forEach(ended, (call) => Deferred.fail(call.end, error), { discard: true })
      yield* settled(ended)
    })

  const drain = Effect.gen(function* () {
    draining = true
    const open = [...calls]
    yield* Effect.forEach(open, (call) => Deferred.fail(call.end, unavailable), { discard: true })
    yield* settled(open)
  })

  return { guard, endWhere, drain, size: () => calls.size }
})
