/**
 * The A2A methods over the runs service (the same one the MCP run tools use): the SDK's
 * `A2ARequestHandler` interface, implemented directly instead of through its `DefaultRequestHandler`,
 * whose TaskStore would keep a second copy of every task beside the ledger. One handler per request,
 * with that request's caller: a task is a run, private to its client exactly as the run is (another
 * client's task id is "task not found", as a made-up one).
 */
import type { A2ARequestHandler } from "@a2a-js/sdk/server"
import type { AgentCard, Artifact, ListTasksResponse, Task, TaskPushNotificationConfig } from "@a2a-js/sdk"
import { TaskState } from "@a2a-js/sdk"
import {
  A2AError,
  ExtendedAgentCardNotConfiguredError,
  RequestMalformedError,
  TaskNotFoundError,
  UnsupportedOperationError
} from "@a2a-js/sdk/errors"
import { Effect } from "effect"
import type { BridgeError } from "../../domain/errors.ts"
import { errorCode } from "../../domain/errors.ts"
import { type ProtocolErrorKind, protocolErrorKind } from "../protocolErrors.ts"
import { A2A_LIST_DEFAULT, A2A_LIST_MAX, WAIT_DEFAULT_SECONDS } from "../../domain/limits.ts"
import { isTerminal, type RunStatus, type RunView } from "../../domain/runs/view.ts"
import { answerFromText, needsClient, PHASE_KEYS, phaseOf, statusesOfPhase } from "../../domain/runs/phase.ts"
import { Caller } from "../../request/Caller.ts"
import { PushConfigs } from "../../services/a2aPush/PushConfigs.ts"
import { Runs } from "../../services/runs/Runs.ts"
import { type MessageInput, messageInput } from "./messageInput.ts"
import { attachPush, checkPush, createPush, deletePush, getPush, listPush } from "./pushMethods.ts"
import { streamingMethods } from "./streamMethods.ts"
import { outputWindows } from "./taskStream.ts"
import { outputArtifact, STATE_OF, stateOf, taskOf } from "./taskOfRun.ts"
import type { A2AEnv, A2ARunner } from "./env.ts"

export type { A2AEnv, A2ARunner }

/**
 * The A2A error for a bridge error (its kind: `../protocolErrors.ts`), its text already redacted:
 * not found → TaskNotFound; invalid params → RequestMalformed (-32602) with the bridge's sentence;
 * internal → the internal error. The bridge code rides along in
 * the error info's metadata.
 */
export const a2aErrorOf = (e: BridgeError, text: string): A2AError => {
  const options = { message: text, metadata: { bridge_code: errorCode(e) } }
  const of: Readonly<Record<ProtocolErrorKind, () => A2AError>> = {
    not_found: () => new TaskNotFoundError(options),
    invalid_params: () => new RequestMalformedError(options),
    internal: () => new A2AError(options)
  }
  return of[protocolErrorKind(e)]()
}

/** The output of a finished run, window after window, up to A2A_ARTIFACT_MAX_BYTES. */
const artifactOf = (first: RunView): Effect.Effect<Artifact | undefined, BridgeError, A2AEnv> =>
  Effect.gen(function* () {
    if (!isTerminal(first.status) || first.output === null) return undefined
    const { windows, complete } = yield* outputWindows(first)
    return outputArtifact(windows, first.output_total, complete)
  })

export const taskOfView = (view: RunView, historyLength: number | undefined) =>
  Effect.map(artifactOf(view), (artifact) => taskOf(view, { historyLength, artifact }))

const readTask = (id: string, historyLength: number | undefined) =>
  Effect.flatMap(Effect.flatMap(Runs, (runs) => runs.status(id, 0)), (view) => taskOfView(view, historyLength))

/** Waits as `agent_run_wait` does (ends at a terminal state or a pending question), then reads the task. */
const waitThenRead = (id: string, historyLength: number | undefined) =>
  Effect.flatMap(Runs, (runs) => Effect.zipRight(runs.wait(id, WAIT_DEFAULT_SECONDS), readTask(id, historyLength)))

/** A message for an existing task: answers its question, else steers it (where Hermes can). */
const continueTask = (view: RunView, text: string): Effect.Effect<void, BridgeError | A2AError, A2AEnv> =>
  Effect.gen(function* () {
    const runs = yield* Runs
    if (isTerminal(view.status)) {
      return yield* Effect.fail(new UnsupportedOperationError(`task ${view.run_id} has ended (${view.status}): send a new message without taskId`))
    }
    const phase = phaseOf(view)
    if (needsClient(phase)) {
      yield* runs.answer(view.run_id, phase.question.request_id, answerFromText(phase.question, text))
      return
    }
    yield* runs.steer(view.run_id, text)
  })

/** The run statuses a task state may come from: those of every phase it maps from (`statusesOfPhase`). */
const statusesOf = (state: TaskState): ReadonlyArray<RunStatus> =>
  [...new Set(PHASE_KEYS.filter((k) => STATE_OF[k] === state).flatMap(statusesOfPhase))]

const pageSizeOf = (asked: number | undefined) => {
  if (asked === undefined || asked === 0) return A2A_LIST_DEFAULT
  if (!Number.isInteger(asked) || asked < 1 || asked > A2A_LIST_MAX) throw new RequestMalformedError(`pageSize must be 1 to ${A2A_LIST_MAX}`)
  return asked
}

const cursorOf = (token: string): string => {
  const runId = Buffer.from(token, "base64url").toString("utf8")
  if (!/^run_[0-9a-f]{32}$/.test(runId)) throw new RequestMalformedError("pageToken is not one this server gave")
  return runId
}

/**
 * The run a message is for: a new one (the contextId is the Hermes session; a message without one
 * opens a context of its own, named after the message so that a retry, same messageId, is the same
 * request), or the task it names, answered or steered with it.
 */
const startOrContinue = (input: MessageInput, pushGiven?: TaskPushNotificationConfig): Effect.Effect<RunView, BridgeError | A2AError, A2AEnv> =>
  Effect.gen(function* () {
    const runs = yield* Runs
    // An inline push config is checked before anything starts, so a refused one records nothing.
    const push = pushGiven === undefined ? undefined : yield* checkPush(pushGiven)
    const taskId = input.message.taskId
    if (taskId.length > 0) {
      const view = yield* runs.status(taskId, 0)
      if (input.message.contextId.length > 0 && input.message.contextId !== (view.session_key ?? view.run_id)) {
        return yield* Effect.fail(new RequestMalformedError("message.contextId is not the task's contextId"))
      }
      if (push !== undefined) yield* attachPush(taskId, push, input.message.messageId)
      yield* continueTask(view, input.text)
      return yield* runs.status(taskId, 0)
    }
    const contextId = input.message.contextId.length > 0 ? input.message.contextId : `a2a-${input.message.messageId}`
    // A client with no room for its push config is refused before its task starts.
    if (push !== undefined) yield* Effect.flatMap(Caller, (caller) => Effect.flatMap(PushConfigs, (s) => s.roomFor(caller.client))).pipe(Effect.catchTag("SqlError", Effect.die))
    const started = yield* runs.start({ agent: input.agent, input: input.text, session_key: contextId, idempotency_key: input.message.messageId, face: "a2a" })
    if (push !== undefined) yield* attachPush(started.run_id, push, input.message.messageId)
    return started
  })

export const makeHandler = (run: A2ARunner, card: () => Promise<AgentCard>): A2ARequestHandler => {
  /** A program that may also fail with an A2A error of its own (thrown as it is). */
  const runOrThrow = <A>(program: Effect.Effect<A, BridgeError | A2AError, A2AEnv>): Promise<A> =>
    run(Effect.catchIf(program, (e): e is A2AError => e instanceof A2AError, (e) => Effect.die(e)) as Effect.Effect<A, BridgeError, A2AEnv>)

  return {
    getAgentCard: card,
    getAuthenticatedExtendedAgentCard: async () => {
      throw new ExtendedAgentCardNotConfiguredError("the bridge has one card, the public one")
    },

    sendMessage: async (params) => {
      const input = messageInput(params)
      const historyLength = params.configuration?.historyLength
      const blocking = params.configuration?.returnImmediately !== true
      return runOrThrow(Effect.flatMap(startOrContinue(input, params.configuration?.taskPushNotificationConfig), (view) =>
        blocking ? waitThenRead(view.run_id, historyLength) : taskOfView(view, historyLength)))
    },

    ...streamingMethods({ run, runOrThrow, startOrContinue }),

    getTask: async (params) => {
      if (params.id.length === 0) throw new RequestMalformedError("id is required")
      return run(readTask(params.id, params.historyLength))
    },

    cancelTask: async (params) => {
      if (params.id.length === 0) throw new RequestMalformedError("id is required")
      // agent_run_stop's rules: a finished run is answered as it is.
      return run(Effect.flatMap(Effect.flatMap(Runs, (runs) => runs.stop(params.id)), (view) => taskOfView(view, undefined)))
    },

    listTasks: async (params): Promise<ListTasksResponse> => {
      const pageSize = pageSizeOf(params.pageSize)
      const after = params.pageToken.length === 0 ? undefined : cursorOf(params.pageToken)
      const since = params.statusTimestampAfter === undefined || params.statusTimestampAfter === "" ? undefined : Date.parse(params.statusTimestampAfter)
      if (since !== undefined && !Number.isFinite(since)) throw new RequestMalformedError("statusTimestampAfter is not an ISO 8601 time")
      const state = params.status === TaskState.TASK_STATE_UNSPECIFIED ? undefined : params.status
      return runOrThrow(Effect.gen(function* () {
        const runs = yield* Runs
        // The caller's runs only (the service scopes the page by the key), newest first, from the
        // ledger's cursor; the filters are the ledger's too, so every page is a page of the matches.
        const page = yield* runs.page({
          statuses: state === undefined ? undefined : statusesOf(state),
          session_key: params.contextId.length === 0 ? undefined : params.contextId,
          updated_since: since,
          after,
          limit: pageSize
        }).pipe(Effect.catchTag("RunNotFound", () => Effect.fail(new RequestMalformedError("pageToken is not one this server gave (or its task is gone)"))))
        // The ledger's status alone cannot tell a phase (a question pending or retired meanwhile:
        // stateOf), so the page is of the statuses it may come from, and the others dropped here.
        const items = state === undefined ? page.runs : page.runs.filter((r) => stateOf(r) === state)
        const tasks: Array<Task> = params.includeArtifacts === true
          ? yield* Effect.forEach(items, (r) => readTask(r.run_id, params.historyLength))
          : items.map((r) => taskOf(r, { historyLength: params.historyLength }))
        const last = page.runs[page.runs.length - 1]
        return { tasks, nextPageToken: page.more && last !== undefined ? Buffer.from(last.run_id, "utf8").toString("base64url") : "", pageSize, totalSize: page.total }
      }))
    },

    // pushMethods.ts: every one reads the task as the caller first (another client's is TaskNotFound).
    createTaskPushNotificationConfig: (params) => runOrThrow(createPush(params)),
    getTaskPushNotificationConfig: (params) => runOrThrow(getPush(params)),
    listTaskPushNotificationConfigs: (params) => runOrThrow(listPush(params.taskId)),
    deleteTaskPushNotificationConfig: (params) => runOrThrow(deletePush(params.taskId, params.id))
  }
}
