/**
 * `tasks/get`, `tasks/update` and `tasks/cancel` over the runs service: a task is a run, its id is
 * the run id, and it is private to its client exactly as the run is (the service answers another
 * client's run as it answers an unknown id, and so do these methods). The programs read `Runs`
 * with the request's `Caller`; the edge runs them in the daemon's runtime.
 */
import { Effect, Either, Schema } from "effect"
import { type BridgeError, errorText, InvalidInput } from "../../../domain/errors.ts"
import { type ProtocolErrorKind, protocolErrorKind } from "../../protocolErrors.ts"
import type { ProtocolError } from "@modelcontextprotocol/server"
import type { RunView } from "../../../domain/runs/view.ts"
import type { Caller } from "../../../request/Caller.ts"
import type { Progress } from "../../../request/Progress.ts"
import { Runs } from "../../../services/runs/Runs.ts"
import agentRunStatus from "../agent-tools/agent_run_status.ts"
import { toolProgram } from "../runTool.ts"
import { type DetailedTask, internalError, invalidParams, taskNotFound } from "./protocol.ts"
import { ANSWER_FIELD, isFinishedRun, pendingClarification, taskOfRun } from "./taskOfRun.ts"

export type TaskEnv = Runs | Caller | Progress
export type TaskProgram<A> = Effect.Effect<A, BridgeError, TaskEnv>

/** Runs a task program for a request (with its caller) in the daemon's runtime. */
export type TaskRunner = <A>(program: TaskProgram<A>) => Promise<Either.Either<A, BridgeError>>

/**
 * Finished runs' tasks, per run view. The runs service hands out the same view object for a
 * finished run each time (it no longer changes), so its task, with the final result made once, is
 * kept beside it, weakly: a poll of a finished task costs what `agent_run_status` costs.
 */
const finishedTasks = new WeakMap<RunView, DetailedTask>()

/**
 * The final result: what `agent_run` itself answers for the finished run (the run view with the
 * first output window, redacted), so that it reads against `agent_run`'s output schema, as a
 * client that validates a task's result with the tool's schema does (the MCP Inspector).
 */
const finalResult = (runId: string) =>
  Effect.flatMap(toolProgram(agentRunStatus, { run_id: runId }), (result) =>
    result.isError === true
      ? Effect.dieMessage(`agent_run_status on a finished run answered an error: ${JSON.stringify(result.content)}`)
      : Effect.succeed(result))

/** The task of a run view just read (a finished run's with its final result). */
export const taskOfView = (view: RunView, retentionMs: number): TaskProgram<DetailedTask> =>
  Effect.gen(function* () {
    if (!isFinishedRun(view) || view.status === "cancelled") return taskOfRun(view, retentionMs)
    const kept = finishedTasks.get(view)
    if (kept !== undefined) return kept
    const task = taskOfRun(view, retentionMs, yield* finalResult(view.run_id))
    finishedTasks.set(view, task)
    return task
  })

export const getTask = (taskId: string, retentionMs: number): TaskProgram<DetailedTask> =>
  Effect.flatMap(Effect.flatMap(Runs, (runs) => runs.status(taskId, 0)), (view) => taskOfView(view, retentionMs))

/** An `inputResponses` entry, as the spec's elicitation result reads. */
const InputResponse = Schema.Struct({
  action: Schema.String,
  content: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})
const Answer = Schema.Union(Schema.String, Schema.Array(Schema.String))

/**
 * The answer to the run's pending clarification, with `agent_run_answer`'s rules. As the spec
 * says, a response for a key that is not outstanding (never asked, answered already, or a question
 * retired meanwhile) is ignored, and so is a declined or cancelled form: the question stays
 * pending until it is answered, the run stopped (`tasks/cancel`) or Hermes retires it.
 */
export const updateTask = (taskId: string, inputResponses: Readonly<Record<string, unknown>>): TaskProgram<void> =>
  Effect.gen(function* () {
    const runs = yield* Runs
    const q = pendingClarification(yield* runs.status(taskId, 0))
    if (q === undefined || !Object.hasOwn(inputResponses, q.request_id)) return
    const response = Schema.decodeUnknownEither(InputResponse)(inputResponses[q.request_id])
    if (Either.isLeft(response)) {
      return yield* new InvalidInput({ message: `inputResponses.${q.request_id} is not an elicitation result ({action, content})` })
    }
    if (response.right.action !== "accept") return
    const answer = Schema.decodeUnknownEither(Answer)(response.right.content?.[ANSWER_FIELD])
    if (Either.isLeft(answer)) {
      return yield* new InvalidInput({ message: `inputResponses.${q.request_id}.content.${ANSWER_FIELD} must be the answer: a string, or a list of strings` })
    }
    yield* runs.answer(taskId, q.request_id, answer.right).pipe(Effect.catchTag("NoPendingRequest", () => Effect.void))
  })

/** Stops the run, with `agent_run_stop`'s rules (a finished run is left as it is). */
export const cancelTask = (taskId: string): TaskProgram<void> => Effect.asVoid(Effect.flatMap(Runs, (runs) => runs.stop(taskId)))

/** The protocol error for a bridge error (its kind: `../../protocolErrors.ts`), with its text. */
export const protocolErrorOf = (e: BridgeError, verb: "retrieve" | "update" | "cancel") => {
  const of: Readonly<Record<ProtocolErrorKind, () => ProtocolError>> = {
    not_found: () => taskNotFound(verb),
    invalid_params: () => invalidParams(errorText(e)),
    internal: () => internalError(errorText(e))
  }
  return of[protocolErrorKind(e)]()
}
