/**
 * Plays a run's plan: publishes its events at the scripted pace, waits on approvals and
 * clarifications (with Hermes's timeouts), honours stop and steer, and settles the run. A stop is
 * checked at every step and while waiting, as Hermes's agent loop checks its interrupt flag.
 */
import { Deferred, Effect, Option } from "effect"
import type { SimRun } from "./run.ts"
import type { Plan, Step } from "./script.ts"
import type { SimState } from "./state.ts"
import { newHex32 } from "./wire.ts"

export interface ExecutorContext {
  readonly state: SimState
  /** Restarts the whole simulated process (a `[sim:restart]` run asks for this). */
  readonly restart: Effect.Effect<void>
}

/** The failure that unwinds the plan when a stop arrives (the run then ends cancelled). */
class Stopped {
  readonly _tag = "Stopped"
}

const tokens = (s: string) => Math.max(1, Math.ceil(s.length / 4))

export const executeRun = (ctx: ExecutorContext, run: SimRun, plan: Plan): Effect.Effect<void> => {
  const { state } = ctx
  const opts = state.options
  let output = ""
  let nextAt = Date.now()
  const gap = plan.gapMs / opts.speed

  /** Waits `ms`, failing with Stopped as soon as a stop arrives. */
  const waitOrStop = (ms: number): Effect.Effect<void, Stopped> =>
    // A frame already due (less than a millisecond to wait) only checks for a stop.
    ms < 1 ? Effect.zipRight(Effect.yieldNow(), checkStop) : Deferred.await(run.stop).pipe(
      Effect.timeoutOption(ms),
      Effect.flatMap(Option.match({ onNone: () => Effect.void, onSome: () => Effect.fail(new Stopped()) }))
    )

  /** Keeps the scripted pace without drifting: frame i is due at start + i × gap. */
  const pace = Effect.suspend(() => {
    if (gap <= 0) return Effect.zipRight(Effect.yieldNow(), checkStop)
    nextAt += gap
    return waitOrStop(nextAt - Date.now())
  })

  const checkStop = Deferred.isDone(run.stop).pipe(
    Effect.flatMap((stopped) => (stopped || run.status === "stopping" ? Effect.fail(new Stopped()) : Effect.void))
  )

  const emit = (event: string, fields: Readonly<Record<string, unknown>>) =>
    Effect.suspend(() => {
      if (event === "message.delta") output += String(fields.delta ?? "")
      return state.publish(run, event, fields)
    })

  const setStatus = (status: SimRun["status"]) => Effect.sync(() => {
    if (run.status !== "stopping") run.status = status
    run.updatedAt = Date.now()
  })

  const approval = (step: Extract<Step, { _tag: "Approval" }>): Effect.Effect<ReadonlyArray<Step>, Stopped> =>
    Effect.gen(function* () {
      const answer = yield* Deferred.make<string>()
      const pending = {
        request_id: newHex32(), command: step.command, description: step.description,
        pattern_key: step.description, pattern_keys: [step.description], allow_permanent: true, allow_session: true,
        choices: ["once", "session", "always", "deny"], answer
      }
      run.approval = pending
      yield* setStatus("waiting_for_approval")
      // 0.19's approval events carry no request_id (the approval route never reads one).
      const { answer: _a, request_id, ...fields } = pending
      yield* state.publish(run, "approval.request", state.options.approvalRequestId ? { ...fields, request_id } : fields)
      const outcome = yield* Deferred.await(answer).pipe(
        Effect.map((choice) => ({ choice, stopped: false })),
        Effect.race(Deferred.await(run.stop).pipe(Effect.as({ choice: "deny", stopped: true }))),
        // Hermes denies what nobody answered within approvals.timeout.
        Effect.timeoutTo({ duration: opts.approvalTimeoutMs, onTimeout: () => ({ choice: "deny", stopped: false }), onSuccess: (o) => o })
      )
      run.approval = null
      // `resolved` is how many approvals the answer settled (an integer, as Hermes counts them).
      yield* state.publish(run, "approval.responded", { choice: outcome.choice, resolved: 1, ...(state.isNew ? { request_id } : {}) })
      if (outcome.stopped) return yield* Effect.fail(new Stopped())
      yield* setStatus("running")
      return outcome.choice === "deny" ? step.denied : step.approved
    })

  const clarify = (step: Extract<Step, { _tag: "Clarify" }>): Effect.Effect<ReadonlyArray<Step>, Stopped> =>
    Effect.gen(function* () {
      const answer = yield* Deferred.make<string | null>()
      const pending = { clarify_id: newHex32(), question: step.question, choices: step.choices, multi_select: step.multiSelect, answer }
      run.clarification = pending
      yield* setStatus("waiting_for_clarification")
      const { answer: _a, ...fields } = pending
      yield* state.publish(run, "clarify.request", fields)
      const outcome = yield* Deferred.await(answer).pipe(
        Effect.map((value) => ({ _tag: "answered" as const, value })),
        Effect.race(Deferred.await(run.stop).pipe(Effect.as({ _tag: "stopped" as const }))),
        Effect.timeoutTo({ duration: opts.clarifyTimeoutMs, onTimeout: () => ({ _tag: "timeout" as const }), onSuccess: (o) => o })
      )
      run.clarification = null
      if (outcome._tag === "stopped") return yield* Effect.fail(new Stopped())
      if (outcome._tag === "timeout") {
        yield* state.publish(run, "clarify.retired", { clarify_id: pending.clarify_id, notice: "The question timed out; continuing with defaults." })
      } else {
        yield* state.publish(run, "clarify.responded", { clarify_id: pending.clarify_id, outcome: "answered" })
      }
      yield* setStatus("running")
      return step.after(outcome._tag === "answered" ? outcome.value : null)
    })

  const settle = (status: "completed" | "failed" | "cancelled", extra: { error?: string } = {}) =>
    Effect.suspend(() => {
      const now = Date.now()
      run.approval = null
      run.clarification = null
      run.endedAt = now
      run.updatedAt = now
      if (status === "completed") {
        const usage = { input_tokens: tokens(run.input), output_tokens: tokens(output), total_tokens: tokens(run.input) + tokens(output) }
        run.status = "completed"
        run.output = output
        run.usage = usage
        return state.publish(run, "run.completed", {
          output, usage, ...(run.pendingSteer !== null ? { pending_steer: run.pendingSteer } : {})
        })
      }
      if (status === "failed") {
        run.status = "failed"
        run.error = extra.error ?? "failed"
        return state.publish(run, "run.failed", { error: run.error })
      }
      run.status = "cancelled"
      return state.publish(run, "run.cancelled", {})
    })

  /** Works the steers accepted so far into the answer, then closes the steering window. */
  const finishAnswer = Effect.gen(function* () {
    while (run.steers.length > 0) {
      const steer = run.steers.shift() ?? ""
      yield* emit("message.delta", { delta: `\n\nSteered: ${steer}` })
      yield* pace
    }
    run.answered = true
  })

  const play = (steps: ReadonlyArray<Step>): Effect.Effect<"done" | "settled", Stopped> =>
    Effect.gen(function* () {
      for (const step of steps) {
        yield* checkStop
        switch (step._tag) {
          case "Emit":
            yield* emit(step.event, step.fields)
            yield* pace
            break
          case "Approval": {
            const next = yield* approval(step)
            if ((yield* play(next)) === "settled") return "settled"
            break
          }
          case "Clarify": {
            const next = yield* clarify(step)
            if ((yield* play(next)) === "settled") return "settled"
            break
          }
          case "Restart":
            // The restart interrupts this very fiber; it must not be part of it.
            yield* Effect.forkDaemon(ctx.restart)
            return yield* Effect.never
          case "Fail":
            yield* settle("failed", { error: step.error })
            return "settled"
          case "Complete":
            yield* finishAnswer
            // Hermes settles the run a moment after the answer is written; a steer arriving in
            // between comes back as `pending_steer`.
            yield* pace
            yield* settle("completed")
            return "settled"
        }
      }
      return "done"
    })

  return Effect.gen(function* () {
    yield* setStatus("running")
    const result = yield* play(plan.steps).pipe(Effect.catchTag("Stopped", () => Effect.succeed("stopped" as const)))
    if (result === "stopped") yield* settle("cancelled")
    else if (result === "done") yield* settle("completed")
  })
}
