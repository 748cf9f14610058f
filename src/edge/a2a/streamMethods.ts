/**
 * `SendStreamingMessage` and `SubscribeToTask`: the SDK's async generators, one `taskStream.ts`
 * step per `run`. The HTTP side (`sse.ts`) writes each event as an SSE frame; closing the stream
 * aborts the request's runner, which interrupts the step in flight, so nothing outlives it.
 */
import type { SendMessageRequest, StreamResponse, SubscribeToTaskRequest, TaskPushNotificationConfig } from "@a2a-js/sdk"
import type { A2AError } from "@a2a-js/sdk/errors"
import { RequestMalformedError, UnsupportedOperationError } from "@a2a-js/sdk/errors"
import { Effect } from "effect"
import type { BridgeError } from "../../domain/errors.ts"
import { isTerminal, type RunView } from "../../domain/runs/view.ts"
import { Runs } from "../../services/runs/Runs.ts"
import type { A2AEnv, A2ARunner } from "./env.ts"
import { type MessageInput, messageInput } from "./messageInput.ts"
import { makeTaskStream, type StreamMode } from "./taskStream.ts"

export interface StreamDeps {
  readonly run: A2ARunner
  readonly runOrThrow: <A>(program: Effect.Effect<A, BridgeError | A2AError, A2AEnv>) => Promise<A>
  readonly startOrContinue: (input: MessageInput, push?: TaskPushNotificationConfig) => Effect.Effect<RunView, BridgeError | A2AError, A2AEnv>
}

export const streamingMethods = ({ run, runOrThrow, startOrContinue }: StreamDeps) => {
  async function* follow(view: RunView, mode: StreamMode, historyLength: number | undefined): AsyncGenerator<StreamResponse, void, undefined> {
    const stream = makeTaskStream(view.run_id, mode, historyLength)
    let step = await run(stream.first(view))
    for (;;) {
      for (const event of step.events) yield event
      if (step.done) return
      step = await run(stream.next)
    }
  }

  return {
    sendMessageStream: async function* (params: SendMessageRequest): AsyncGenerator<StreamResponse, void, undefined> {
      const input = messageInput(params)
      const view = await runOrThrow(startOrContinue(input, params.configuration?.taskPushNotificationConfig))
      yield* follow(view, "send", params.configuration?.historyLength)
    },

    resubscribe: async function* (params: SubscribeToTaskRequest): AsyncGenerator<StreamResponse, void, undefined> {
      if (params.id.length === 0) throw new RequestMalformedError("id is required")
      const view = await run(Effect.flatMap(Runs, (runs) => runs.status(params.id, 0)))
      // The spec (1.0, SubscribeToTask): a task in a terminal state cannot be subscribed to.
      if (isTerminal(view.status)) {
        throw new UnsupportedOperationError(`task ${view.run_id} has ended (${view.status}): read it with GetTask`)
      }
      yield* follow(view, "subscribe", undefined)
    }
  }
}
