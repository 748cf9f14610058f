/**
 * The operator's stop of a run (console page, `agent-bridge runs stop`), one mechanism for both:
 * the request is a row (`stopRequests.ts`) and the daemon carries it out through the run service's
 * own stop, recorded as the operator's (`run.stopping` carries `by: "operator"` and the channel).
 *
 * - `OperatorStopsRecording` (the CLI): checks the run and records the request; nothing else.
 * - `OperatorStopsLive` (the daemon): records and carries out at once, and `carryOutOnSignal`
 *   carries out every pending row at start and whenever another process committed (the CLI's
 *   request, noticed by the process's `ChangeFeed` on topic `stops`).
 */
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option, Stream } from "effect"
import { type BridgeError, errorText, RunNotFound } from "../../domain/errors.ts"
import { isTerminal } from "../../domain/runs/view.ts"
import { Caller } from "../../request/Caller.ts"
import { ChangeFeed } from "../../storage/ChangeFeed.ts"
import { Lifecycle } from "../../common/Lifecycle.ts"
import { Runs, type StopActor } from "../runs/Runs.ts"
import { Ledger } from "../runs/Ledger.ts"
import { makeStopRequests, type StopRequest, type StopRequestsShape } from "./stopRequests.ts"

export type StopAnswer =
  | { readonly _tag: "AlreadyEnded"; readonly status: string }
  | { readonly _tag: "Requested"; readonly request: StopRequest }

export interface OperatorStopsShape {
  /** The operator asks to stop `runId`: unknown → `bridge.run_not_found`; ended → nothing to do. */
  readonly request: (runId: string, via: StopActor["via"]) => Effect.Effect<StopAnswer, BridgeError>
}

export class OperatorStops extends Context.Tag("agent-bridge/console/OperatorStops")<OperatorStops, OperatorStopsShape>() {}

/** Records requests only (the CLI: the daemon carries them out). */
export const OperatorStopsRecording: Layer.Layer<OperatorStops, never, SqlClient.SqlClient | Ledger> = Layer.effect(
  OperatorStops,
  Effect.gen(function* () {
    const store = yield* makeStopRequests
    const ledger = yield* Ledger
    return { request: recordRequest(store, ledger) }
  })
)

/** Records and carries out (the daemon: the pending rows once it is ready, then on each signal). */
export const OperatorStopsLive: Layer.Layer<OperatorStops, never, SqlClient.SqlClient | Ledger | Runs | ChangeFeed | Lifecycle> = Layer.scoped(
  OperatorStops,
  Effect.gen(function* () {
    const store = yield* makeStopRequests
    const ledger = yield* Ledger
    const runs = yield* Runs
    const lifecycle = yield* Lifecycle
    const feed = yield* ChangeFeed
    const carryOut = carryOutPending(store, runs, ledger)
    // Subscribed now, so a request another process commits while the daemon is still starting is
    // carried out too. Runs answer only once the daemon is ready (its runs re-attached), so the
    // fiber waits for that, carries out what was requested while the daemon was down, then does so
    // again on every commit of another process (this process's own requests are carried out at once).
    const otherCommits = (yield* feed.subscribe("stops")).pipe(Stream.filter((c) => c.origin === "other"))
    const ready = lifecycle.started
    yield* ready.pipe(
      Effect.zipRight(carryOut),
      Effect.zipRight(otherCommits.pipe(
        Stream.buffer({ capacity: 1, strategy: "sliding" }),
        Stream.runForEach(() => carryOut)
      )),
      Effect.forkScoped
    )
    const record = recordRequest(store, ledger)
    const request: OperatorStopsShape["request"] = (runId, via) =>
      Effect.gen(function* () {
        const answer = yield* record(runId, via)
        if (answer._tag === "AlreadyEnded") return answer
        yield* carryOut
        const now = yield* internal(store.get(runId))
        return { _tag: "Requested", request: Option.getOrElse(now, () => answer.request) } as const
      })
    return { request }
  })
)

/** A database failure here is a defect: the edge (page, CLI) reports it under its incident. */
const internal = <A, E>(e: Effect.Effect<A, E>) => Effect.orDie(e)

const recordRequest = (store: StopRequestsShape, ledger: Context.Tag.Service<Ledger>) => (runId: string, via: StopActor["via"]): Effect.Effect<StopAnswer, BridgeError> =>
  Effect.gen(function* () {
    const found = yield* internal(ledger.get(runId))
    if (Option.isNone(found)) return yield* new RunNotFound({ message: `no run ${JSON.stringify(runId.slice(0, 80))}` })
    if (isTerminal(found.value.status)) return { _tag: "AlreadyEnded", status: found.value.status } as const
    const request = yield* internal(store.request(runId, via))
    yield* Effect.logInfo(`operator asked to stop run ${runId} (${via})`)
    return { _tag: "Requested", request } as const
  })

/**
 * Carries out every pending request through `Runs.stop` as the admin, recording the outcome. A
 * failure (Hermes unreachable, say) is recorded as the outcome, not retried in a loop: the run's
 * follower still ends the run when Hermes does, and the operator can ask again.
 */
const carryOutPending = (store: StopRequestsShape, runs: Context.Tag.Service<Runs>, ledger: Context.Tag.Service<Ledger>) =>
  Effect.gen(function* () {
    const pending = yield* store.pending
    for (const request of pending) {
      // Whether the run had ended is read before the stop: the view the stop returns may already
      // show the run cancelled by this very stop (the follower can record Hermes's end first).
      const before = yield* internal(ledger.get(request.runId))
      const endedBefore = Option.isSome(before) && isTerminal(before.value.status)
      const outcome = yield* runs.stop(request.runId, { by: "operator", via: request.via }).pipe(
        Effect.provideService(Caller, Caller.admin),
        Effect.map(() => (endedBefore ? "already_ended" : "stopping")),
        Effect.catchAll((e) =>
          e._tag === "RunNotFound" ? Effect.succeed("gone") : e._tag === "Unavailable" ? Effect.succeed(null) : Effect.succeed(`failed: ${errorText(e)}`)
        )
      )
      // Unavailable (the daemon is draining): left pending for the next start.
      if (outcome !== null) yield* store.finish(request.runId, outcome)
    }
  }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("operator stops: carrying out failed", cause)))
