/**
 * `agent_run_answer`, `agent_run_steer` and `agent_run_stop`: checked against the ledger, forwarded
 * to Hermes, and recorded. Hermes's refusals come mapped to the bridge's errors (`bridgeHermes.ts`); a
 * run Hermes no longer has a live task for is answered in the caller's terms (nothing pending, not
 * running).
 */
import { Effect, Option } from "effect"
import { NoPendingRequest, RunNotRunning } from "../../domain/errors.ts"
import { isTerminal } from "../../domain/runs/view.ts"
import type { StopActor } from "./Runs.ts"
import type { HermesClientShape } from "../../hermes/client/HermesClient.ts"
import { bridgeHermes } from "../hermes-failures/bridgeHermes.ts"
import type { LedgerShape, RunChange, RunRecord } from "./Ledger.ts"
import type { RunSignals } from "./RunSignals.ts"
import type { RunLocks } from "./runLocks.ts"

export interface ControlDeps<E> {
  readonly ledger: LedgerShape
  readonly hermes: HermesClientShape
  readonly signals: RunSignals
  readonly locks: RunLocks
  /** Settles a run from Hermes's status (the follower's reconciliation); none when the ledger lost it. */
  readonly reconcile: (runId: string) => Effect.Effect<Option.Option<RunRecord>, E>
}

export const makeControl = <E>({ ledger, hermes: client, signals, locks, reconcile }: ControlDeps<E>) => {
  const hermes = bridgeHermes(client)
  const notPending = (requestId: string) =>
    new NoPendingRequest({ message: `no clarification ${JSON.stringify(requestId.slice(0, 80))} is pending on this run` })
  const notRunning = (status: string) =>
    new RunNotRunning({ message: `the run is ${status}; steering needs a run that is running` })

  /** The data of a stop's `run.stopping` event: who stopped the run (none: the run's own client). */
  const stoppingData = (actor?: StopActor): Record<string, unknown> => (actor === undefined ? {} : { by: actor.by, via: actor.via })


  /**
   * What an answer stores on the run before Hermes is given it: its own record, unless another
   * answer to the same request is on its way already (through another process, or one whose fate
   * is unknown) with other words. Hermes's echo does not say which answer it took, so then nothing
   * may stand for the echo: the request's id alone (`withAsked` puts only a client's record in
   * the echo's place), and the echo is stored as Hermes's, without an answer, rather than a wrong one.
   */
  const answerToAsk = (asked: RunRecord["answerAsked"], answered: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> =>
    asked === null || asked["request_id"] !== answered["request_id"] || sameAnswer(asked, answered) ? answered : { request_id: answered["request_id"] }
  const sameAnswer = (asked: RunRecord["answerAsked"], answered: Readonly<Record<string, unknown>>) =>
    asked !== null && JSON.stringify(asked) === JSON.stringify(answered)

  /** Writes a change decided on the stored run, and answers the run as stored. */
  const write = (runId: string, decide: (current: RunRecord) => RunChange) =>
    ledger.modify(runId, (current) => ({ change: decide(current), result: undefined })).pipe(Effect.map((m) => m.record))
  /** Stores on the run what a control asks of Hermes (or withdraws it): nothing a waiter sees changes, so none is woken. */
  const ask = write
  /** Writes a change a waiter sees, then wakes the run's waiters. */
  const commit = (runId: string, decide: (current: RunRecord) => RunChange) => Effect.tap(write(runId, decide), (record) => signals.publish(record))

  // Holding the run's permit, as a stop does: Hermes's `clarify.responded` echo (which carries no
  // answer) may come before its reply to the answer, and this process's follower commits it only
  // after this answer's own record, so the stored `clarify.answered` is the client's, with the
  // answer. A follower in another process (a replica) may store the echo first: the answer is
  // stored on the run before Hermes is given it (`answerAsked`), and the ledger stores it in the
  // echo's place (`planWrite`). Hermes refusing it withdraws it; an answer whose fate is unknown
  // (Hermes unreachable, the caller gone) leaves it: it stands only for Hermes's echo of that request.
  const answer = (run: RunRecord, requestId: string, response: string | ReadonlyArray<string>) =>
    locks.withRun(run.runId, Effect.gen(function* () {
      if (run.pending === null && run.status === "waiting_for_approval") {
        return yield* new NoPendingRequest({
          message: "the run waits for the operator's approval, which only the operator answers (in the bridge's inbox); no clarification is pending"
        })
      }
      if (run.pending === null || run.pending.request_id !== requestId) return yield* notPending(requestId)
      const answered = { type: "clarify.answered", data: { request_id: requestId, answer: response, via: "client" } }
      const asking = yield* ask(run.runId, (current) =>
        current.pending?.request_id === requestId ? { answerAsked: answerToAsk(current.answerAsked, answered.data) } : {})
      if (asking.pending?.request_id !== requestId) return yield* notPending(requestId)
      const withdraw = ask(run.runId, (current) => (sameAnswer(current.answerAsked, answered.data) ? { answerAsked: null } : {}))
      const profile = yield* hermes.profile(run.agent)
      yield* hermes.clarify(profile, run.hermesRunId, { clarifyId: requestId, response }).pipe(
        Effect.catchTag("RunNotFound", () => Effect.fail(notPending(requestId))),
        Effect.catchTag("RunNotRunning", () => Effect.fail(notPending(requestId))),
        Effect.tapErrorTag("NoPendingRequest", () => withdraw)
      )
      // Recorded here so the view shows it at once; the follower skips Hermes's echo of it (or,
      // in another process, stored the echo as this). Hermes took this answer: the request is
      // settled, and nothing asked of it stays.
      return yield* commit(run.runId, (current) =>
        current.pending?.request_id === requestId
          ? { events: [answered], pending: null, answerAsked: null, ...(current.status === "waiting_for_clarification" ? { status: "running" as const } : {}) }
          : current.answerAsked?.["request_id"] === requestId ? { answerAsked: null } : {})
    }))

  const steer = (run: RunRecord, input: string) =>
    Effect.gen(function* () {
      if (run.status !== "running") return yield* notRunning(run.status)
      const profile = yield* hermes.profile(run.agent)
      yield* hermes.steer(profile, run.hermesRunId, input).pipe(
        Effect.catchTag("RunNotFound", () => Effect.fail(notRunning("no longer running")))
      )
      // Hermes confirms with a `run.steered` event, which the follower records.
      return run
    })

  // Holding the run's permit: Hermes's run.cancelled, which may come before its answer to the stop,
  // is committed by this process's follower only after this stop's own record (runLocks.ts); a
  // follower in another process stores the record the stop asked before it (`askHermes`).
  const askToStop = (run: RunRecord, actor?: StopActor) =>
    locks.withRun(run.runId, Effect.gen(function* () {
      if (isTerminal(run.status) || run.status === "stopping") return Option.some(run)
      // Not in Hermes yet (queued, or being admitted): it ends here and never reaches Hermes (a start
      // in flight is stopped by the queue once Hermes answers, seeing the run ended).
      if (run.hermesRunId === "") {
        const ended = yield* commit(run.runId, (current) =>
          isTerminal(current.status) || current.hermesRunId !== ""
            ? {}
            : {
                status: "cancelled",
                events: [
                  { type: "run.stopping", data: stoppingData(actor) },
                  { type: "run.cancelled", data: { queued: true } }
                ]
              })
        // Started in Hermes meanwhile: stopped there, as any running run.
        if (ended.hermesRunId === "" || isTerminal(ended.status) || ended.status === "stopping") return Option.some(ended)
        return yield* askHermes(ended, actor)
      }
      return yield* askHermes(run, actor)
    }))

  /**
   * Asks Hermes to stop the run and records the stop once Hermes accepts. What the stop will record
   * is stored on the run first (`RunRecord.stopAsked`): Hermes may end the run before it answers
   * the stop, and a follower in another process (a replica) then stores the cancellation without
   * waiting for this process's permit; the ledger stores the stop's `run.stopping` before any
   * cancellation while one is asked (`planWrite`). It stays asked when the stop's fate is unknown
   * (Hermes unreachable, the caller gone): it names only who asked for a cancellation, and goes
   * when the run ends. Hermes with no live task for the run withdraws it: the run ended without it.
   */
  const askHermes = (run: RunRecord, actor?: StopActor) =>
    Effect.gen(function* () {
      const stopping = stoppingData(actor)
      const asking = yield* ask(run.runId, (current) => (isTerminal(current.status) || current.status === "stopping" ? {} : { stopAsked: stopping }))
      if (isTerminal(asking.status) || asking.status === "stopping") return Option.some(asking)
      const profile = yield* hermes.profile(run.agent)
      const accepted = yield* hermes.stop(profile, run.hermesRunId).pipe(
        Effect.as(true),
        Effect.catchTag("RunNotFound", () => Effect.succeed(false))
      )
      if (!accepted) {
        yield* ask(run.runId, (current) => (current.stopAsked === null ? {} : { stopAsked: null }))
        return Option.none<RunRecord>()
      }
      return Option.some(yield* commit(run.runId, (current) =>
        isTerminal(current.status) || current.status === "stopping"
          ? {}
          // A stopping run asks nothing any more: a pending clarification is dropped with it.
          : { status: "stopping", pending: null, stopAsked: null, events: [{ type: "run.stopping", data: stopping }] }))
    })

  /**
   * No live task in Hermes: the run ended there (or Hermes forgot it), perhaps long ago, on a
   * stream that never said so (docs/RELIABILITY.md, "restart"). The run is settled from Hermes's
   * status, outside the permit (the settling commit takes it), rather than returned unchanged.
   */
  const stop = (run: RunRecord, actor?: StopActor) =>
    Effect.gen(function* () {
      const asked = yield* askToStop(run, actor)
      if (Option.isSome(asked)) return asked.value
      const settled = Option.getOrElse(yield* reconcile(run.runId), () => run)
      yield* Effect.logWarning("stop: Hermes has no live task for the run; settled it from Hermes's status").pipe(
        Effect.annotateLogs({ run_id: run.runId, hermes_run_id: run.hermesRunId, client: run.client, status: settled.status })
      )
      return settled
    })

  return { answer, steer, stop }
}
