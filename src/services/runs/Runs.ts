/**
 * Delegation: the run tools' service. This file is the interface and the "not running" layer
 * (used while the daemon starts or drains, or when tests leave runs out); `RunsLive` implements it.
 */
import { Context, Effect, Layer, Stream } from "effect"
import type { BridgeError } from "../../domain/errors.ts"
import { Unavailable } from "../../domain/errors.ts"
import type { RunEventsPage, RunList, RunListItem, RunStatus, RunView, RunWaitView } from "../../domain/runs/view.ts"
import type { ReasoningEffort } from "../../hermes/client/HermesClient.ts"
import type { Caller } from "../../request/Caller.ts"
import type { RunFace } from "../../domain/runs/face.ts"
import type { Progress } from "../../request/Progress.ts"

export interface StartRunInput {
  readonly agent: string
  readonly input: string
  readonly session_key?: string | undefined
  readonly instructions?: string | undefined
  readonly reasoning_effort?: ReasoningEffort | undefined
  readonly idempotency_key?: string | undefined
  /** The face the start came through (default `mcp`); not part of the idempotency fingerprint. */
  readonly face?: RunFace | undefined
}

/** Who stopped a run when it was not its own client: the operator, from the console page or the CLI. */
export interface StopActor {
  readonly by: "operator"
  readonly via: "page" | "cli"
}

type Op<A, R = Caller> = Effect.Effect<A, BridgeError, R>

/** A page of the caller's runs, newest first (the A2A ListTasks cursor). */
export interface RunPageOptions {
  readonly statuses?: ReadonlyArray<RunStatus> | undefined
  /** The session key as the client gave it (unprefixed). */
  readonly session_key?: string | undefined
  /** Epoch ms: only runs written at or after it. */
  readonly updated_since?: number | undefined
  /** The cursor: the last run of the previous page (one of the caller's; else `bridge.run_not_found`). */
  readonly after?: string | undefined
  readonly limit: number
}

export interface RunPage {
  readonly runs: ReadonlyArray<RunListItem>
  /** More runs follow the page's last. */
  readonly more: boolean
  /** The runs matching, over every page. */
  readonly total: number
}

export interface RunsShape {
  readonly start: (input: StartRunInput) => Op<RunView>
  /** Waits for a terminal status, a pending clarification or the timeout; reports progress meanwhile. */
  readonly wait: (runId: string, timeoutSeconds: number) => Op<RunWaitView, Caller | Progress>
  readonly status: (runId: string, offset: number) => Op<RunView>
  /**
   * The run's view (from offset 0) as it changes: the view now, then a view after each change of
   * its status, events or pending question (this process's writes through the run's signal, another
   * process's through the change feed), ending after the view of its end. No timer: a run that does
   * not change sends nothing. Fails at once as `status` does (an unknown or another client's run).
   */
  readonly watch: (runId: string) => Stream.Stream<RunView, BridgeError, Caller>
  readonly events: (runId: string, sinceSeq: number, limit: number) => Op<RunEventsPage>
  readonly answer: (runId: string, requestId: string, answer: string | ReadonlyArray<string>) => Op<RunView>
  readonly steer: (runId: string, input: string) => Op<RunView>
  /** `actor`: the operator's stop (recorded on the `run.stopping` event); omitted, the caller's own. */
  readonly stop: (runId: string, actor?: StopActor) => Op<RunView>
  readonly list: (options: { readonly status?: RunStatus | undefined; readonly limit: number }) => Op<RunList>
  readonly page: (options: RunPageOptions) => Op<RunPage>
}

export class Runs extends Context.Tag("agent-bridge/Runs")<Runs, RunsShape>() {}

/** Every call answers `bridge.unavailable` (starting, draining, or no run service). */
export const RunsNotRunning = Layer.succeed(Runs, (() => {
  const no = () => Effect.fail(new Unavailable({ message: "the run service is not running" }))
  return { start: no, wait: no, status: no, watch: () => Stream.fromEffect(no()), events: no, answer: no, steer: no, stop: no, list: no, page: no }
})())
