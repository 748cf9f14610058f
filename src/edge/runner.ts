/**
 * One request's program run as a Promise, the one way every face does it (an MCP tool call, the
 * MCP Tasks and skills methods, an A2A method): in the daemon's runtime, as the request's caller
 * with its progress (`asRequest`), cancelled when the request's `AbortSignal` aborts
 * (`Runtime.runPromiseExit`'s `signal`: the program's fiber is interrupted, nothing outlives it),
 * and its end told the way a face answers it (`settle`): the value, a bridge error with its text
 * redacted, an interruption, a face's own protocol error passed through, or an incident logged
 * (only its id leaves the bridge).
 */
import { Cause, Effect, Either, Exit, FiberId, Option, Runtime } from "effect"
import { logIncident } from "../common/incident.ts"
import type { RedactorShape } from "../common/Redactor.ts"
import { type BridgeError, isBridgeError } from "../domain/errors.ts"
import { Caller, type CallerShape } from "../request/Caller.ts"
import { NO_PROGRESS, Progress, type ProgressShape } from "../request/Progress.ts"

/** Who a request runs as, and where its progress goes (nowhere by default). */
export interface RequestContext {
  readonly caller: CallerShape
  readonly progress?: ProgressShape | undefined
}

/** `program` as the request's caller, with its progress. */
export const asRequest = <A, E, R>(program: Effect.Effect<A, E, R>, request: RequestContext): Effect.Effect<A, E, Exclude<Exclude<R, Caller>, Progress>> =>
  program.pipe(Effect.provideService(Caller, request.caller), Effect.provideService(Progress, request.progress ?? NO_PROGRESS))

/**
 * Runs `program` in `runtime` to its Exit; `signal` aborting interrupts it, and one aborted already
 * never starts it (the runtime would run a synchronous program to its end before looking). Never
 * rejects.
 */
export const runExit = <R, A, E>(runtime: Runtime.Runtime<R>, program: Effect.Effect<A, E, R>, signal?: AbortSignal): Promise<Exit.Exit<A, E>> => {
  if (signal === undefined) return Runtime.runPromiseExit(runtime)(program)
  if (signal.aborted) return Promise.resolve(Exit.interrupt(FiberId.none))
  return Runtime.runPromiseExit(runtime)(program, { signal })
}

/**
 * Runs `program` to its value or typed failure; a defect or an interruption rejects, as
 * `Runtime.runPromise` does (the faces whose SDK answers a thrown error itself).
 */
export const runEither = async <R, A, E>(runtime: Runtime.Runtime<R>, program: Effect.Effect<A, E, R>, signal?: AbortSignal): Promise<Either.Either<A, E>> => {
  const exit = await runExit(runtime, program, signal)
  if (exit._tag === "Success") return Either.right(exit.value)
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) return Either.left(failure.value)
  throw Runtime.makeFiberFailure(exit.cause)
}

/** How a request's program ended, as a face answers it. */
export type Outcome<A> =
  | { readonly _tag: "Done"; readonly value: A }
  /** A bridge error; `text` is its sentence through the Redactor. */
  | { readonly _tag: "Refused"; readonly error: BridgeError; readonly text: string }
  /** Interrupted only (the request was closed, or ended from outside). */
  | { readonly _tag: "Interrupted" }
  /** A failure or defect that is the face's own answer (its protocol error), passed through. */
  | { readonly _tag: "Own"; readonly error: unknown }
  /** Anything else: logged under this incident id, which alone leaves the bridge. */
  | { readonly _tag: "Incident"; readonly incident: string }

/**
 * The outcome of `exit`. `own` names the face's own errors (raised in the program as failures or
 * defects) that are answered as they are; an unexpected failure is logged as `what`.
 */
export const settle = async <A>(
  runtime: Runtime.Runtime<never>,
  redactor: RedactorShape,
  exit: Exit.Exit<A, unknown>,
  what: string,
  own: (error: unknown) => boolean = () => false
): Promise<Outcome<A>> => {
  if (exit._tag === "Success") return { _tag: "Done", value: exit.value }
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure) && isBridgeError(failure.value)) {
    return { _tag: "Refused", error: failure.value, text: redactor.text(failure.value.message) }
  }
  if (Option.isSome(failure) && own(failure.value)) return { _tag: "Own", error: failure.value }
  const defect = Cause.dieOption(exit.cause)
  if (Option.isSome(defect) && own(defect.value)) return { _tag: "Own", error: defect.value }
  if (Cause.isInterruptedOnly(exit.cause)) return { _tag: "Interrupted" }
  const internal = await Runtime.runPromise(runtime)(logIncident(what, exit.cause))
  return { _tag: "Incident", incident: internal.incident }
}
