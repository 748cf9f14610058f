/**
 * What a push notification carries: the task as `GetTask` would show it (the runs service's
 * redacted view, its output artifact), as a v1.0 `StreamResponse` with the `task` payload, the
 * delivery id in `metadata.bridge.delivery_id`. The daemon hands this to the push worker.
 */
import { StreamResponse } from "@a2a-js/sdk"
import { Effect, Option } from "effect"
import { Caller } from "../../request/Caller.ts"
import { ProgressNone } from "../../request/Progress.ts"
import type { PushRender } from "../../services/a2aPush/PushWorker.ts"
import { Runs } from "../../services/runs/Runs.ts"
import { isTerminal } from "../../domain/runs/view.ts"
import { taskOfView } from "./handler.ts"
import type { PushEnv } from "./pushMethods.ts"
import { TaskState, taskStateToJSON } from "@a2a-js/sdk"

export const renderPush: PushRender<Runs | PushEnv> = (runId) =>
  Effect.gen(function* () {
    const runs = yield* Runs
    const view = yield* runs.status(runId, 0).pipe(Effect.option)
    if (Option.isNone(view)) return Option.none()
    const task = yield* taskOfView(view.value, undefined)
    const state = task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED
    return Option.some({
      state: taskStateToJSON(state),
      seq: view.value.last_seq,
      terminal: isTerminal(view.value.status),
      body: (deliveryId: string) =>
        JSON.stringify(StreamResponse.toJSON({
          payload: { $case: "task", value: { ...task, metadata: { ...task.metadata, bridge: { ...task.metadata?.["bridge"], delivery_id: deliveryId } } } }
        }))
    })
  }).pipe(Effect.provideService(Caller, Caller.admin), Effect.provide(ProgressNone))
