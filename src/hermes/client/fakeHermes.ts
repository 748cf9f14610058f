/**
 * An in-memory HermesClient for run-service tests: runs are scripted by the test (`emit`), the event
 * log is numbered like a newer Hermes build (Last-Event-ID resumes; `unnumbered`: like an older one,
 * no frame ids, and a stream opened again sees only what comes after it), and failures can be injected.
 * Control calls behave as Hermes does (docs/SIMULATOR.md) (steer only while running, stop → cancelled, clarify
 * only for the pending id), and fail as the real client does: with the adapter's own errors
 * (`HermesStatus` with Hermes's code, `HermesTransport`, `HermesNoProfile`), which the services map.
 * An operation it does not fake (`features`) is a defect naming it (`common/unscripted.ts`).
 */
import { Deferred, Effect, Layer, Option, Redacted, Schema, Stream, SubscriptionRef } from "effect"
import { unscripted } from "../../common/unscripted.ts"
import { HermesStatus, HermesTransport } from "./failure.ts"
import { HermesEventData, makeEvent, TERMINAL_EVENTS } from "../../domain/runs/hermesEvents.ts"
import { TERMINAL_STATUSES } from "../../domain/runs/view.ts"
import {
  HermesClient,
  type HermesClientShape,
  findProfile,
  type HermesEvent,
  namedProfile,
  type HermesProfile,
  type HermesRunStatusName,
  type StartRunRequest
} from "./HermesClient.ts"

export interface FakeRun {
  readonly id: string
  readonly profile: string
  readonly request: StartRunRequest
  status: HermesRunStatusName
  readonly events: Array<HermesEvent>
  readonly version: SubscriptionRef.SubscriptionRef<number>
  output: string
  pendingClarify: string | null
  pendingApproval: string | null
  /** A stream of it was opened before (an `unnumbered` re-attach then starts at the end). */
  subscribed: boolean
}

export interface FakeOptions {
  readonly maxConcurrent?: number
  /** Stop ends the run at once with `run.cancelled` (default true). */
  readonly stopEnds?: boolean
  /**
   * Hermes's answer to a stop comes this long after the run's `run.cancelled` (default 0): the
   * follower may see the run end before the stop returns, as over a busy network.
   */
  readonly stopAnswerDelayMs?: number
  /** Likewise for a clarification's answer: it comes this long after Hermes's `clarify.responded` echo. */
  readonly clarifyAnswerDelayMs?: number
  /** An answer takes this long to reach Hermes (default 0): answers sent close together are all on their way at once. */
  readonly clarifyReachDelayMs?: number
  /**
   * Frames carry no id, as the released 0.19 and 0.20 builds send them: the first stream of a run
   * gets its whole buffer, a later one only what comes after it opened (Hermes's one shared queue).
   */
  readonly unnumbered?: boolean
}

export const makeFakeHermes = (options: FakeOptions = {}) =>
  Effect.sync(() => {
    const profiles: Array<HermesProfile> = [
      namedProfile("default", "http://127.0.0.1:9", Option.some(Redacted.make("k-default"))),
      namedProfile("coder", "http://127.0.0.1:9/p/coder", Option.some(Redacted.make("k-coder"))),
      namedProfile("nokey", "http://127.0.0.1:9/p/nokey", Option.none())
    ]
    const runs = new Map<string, FakeRun>()
    const idempotency = new Map<string, string>()
    /** `open`: event streams being read now (a follow's stream ends, or its reader is interrupted, and it is no longer counted). */
    const calls = { start: [] as Array<StartRunRequest>, stop: [] as Array<string>, steer: [] as Array<string>, clarify: [] as Array<unknown>, follow: 0, status: 0, open: 0 }
    /** followEnds: the next streams end at once, without a terminal event (a dropped connection). */
    const faults = { down: false, followFailures: 0, followDefects: 0, followEnds: 0 }
    let counter = 0
    /** Completing it ends every open event stream without a terminal event (`cutStreams`). */
    let cut = Effect.runSync(Deferred.make<void>())

    const live = () => [...runs.values()].filter((r) => !TERMINAL_STATUSES.has(r.status)).length
    const unavailable = (p: HermesProfile, route: string) => new HermesTransport({ agent: p.agent, route, detail: "ECONNREFUSED" })
    /** Hermes's JSON refusal on a route: its status and error code. */
    const refusal = (p: HermesProfile, route: string, status: number, code: string) =>
      new HermesStatus({ agent: p.agent, route, status, code, detail: null, retryAfter: Option.none() })
    const get = (p: HermesProfile, route: string, id: string) => {
      const r = runs.get(id)
      return r === undefined ? Effect.fail(refusal(p, route, 404, "run_not_found")) : Effect.succeed(r)
    }
    const guard = <A, E>(p: HermesProfile, route: string, e: Effect.Effect<A, E>): Effect.Effect<A, E | HermesTransport> =>
      Effect.suspend((): Effect.Effect<A, E | HermesTransport> => (faults.down ? Effect.fail(unavailable(p, route)) : e))

    /** Appends one event to the run's log (and applies its effect on the fake's status). */
    const emit = (id: string, event: string, fields: Record<string, unknown> = {}) =>
      Effect.gen(function* () {
        const run = runs.get(id)
        if (run === undefined) return yield* Effect.die(`no fake run ${id}`)
        // Decoded as the SSE edge decodes a real frame, so the follower sees what it would see.
        const frame = makeEvent(options.unnumbered === true ? null : run.events.length, Schema.decodeUnknownSync(HermesEventData)({ event, run_id: id, timestamp: 1, ...fields }))
        run.events.push(frame)
        if (event === "message.delta") run.output += String(fields["delta"] ?? "")
        if (event === "approval.request") { run.status = "waiting_for_approval"; run.pendingApproval = String(fields["request_id"]) }
        if (event === "approval.responded") { run.status = run.status === "stopping" ? "stopping" : "running"; run.pendingApproval = null }
        if (event === "clarify.request") { run.status = "waiting_for_clarification"; run.pendingClarify = String(fields["clarify_id"]) }
        if (event === "clarify.responded" || event === "clarify.retired") { run.status = "running"; run.pendingClarify = null }
        if (event === "run.completed") run.status = "completed"
        if (event === "run.failed") run.status = "failed"
        if (event === "run.cancelled") run.status = "cancelled"
        yield* SubscriptionRef.update(run.version, (n) => n + 1)
      })

    const complete = (id: string, output?: string) =>
      Effect.suspend(() =>
        emit(id, "run.completed", { output: output ?? runs.get(id)?.output ?? "", usage: { input_tokens: 3, output_tokens: 5, total_tokens: 8 } })
      )

    const shape: HermesClientShape = unscripted<HermesClientShape>("HermesClient", "the fake Hermes (fakeHermes.ts)")({
      profiles,
      profile: (agent) => findProfile(profiles, agent),
      health: (p) => guard(p, "GET /health", Effect.succeed({ status: "ok", version: "0.20.4" })),
      models: (p) => guard(p, "GET /v1/models", Effect.succeed([p.name])),
      start: (p, req) =>
        guard(p, "POST /v1/runs", Effect.gen(function* () {
          calls.start.push(req)
          const key = req.idempotencyKey === undefined ? undefined : `${p.name}|${req.idempotencyKey}`
          const replay = key === undefined ? undefined : idempotency.get(key)
          if (replay !== undefined) return { hermesRunId: replay, replayed: true }
          if (live() >= (options.maxConcurrent ?? 10)) {
            return yield* refusal(p, "POST /v1/runs", 429, "rate_limit_exceeded")
          }
          counter += 1
          const id = `run_${counter.toString(16).padStart(32, "0")}`
          runs.set(id, {
            id, profile: p.name, request: req, status: "running", events: [], output: "",
            version: yield* SubscriptionRef.make(0), pendingClarify: null, pendingApproval: null, subscribed: false
          })
          if (key !== undefined) idempotency.set(key, id)
          return { hermesRunId: id, replayed: false }
        })),
      status: (p, id) =>
        guard(p, "GET /v1/runs/{id}", Effect.map(Effect.suspend(() => { calls.status += 1; return get(p, "GET /v1/runs/{id}", id) }), (r) => ({
          runId: r.id,
          status: r.status,
          output: r.status === "completed" ? r.output : null,
          usage: null,
          error: r.status === "failed" ? "boom" : null,
          approval: null,
          clarification: null
        }))),
      events: (p, id, lastEventId) => shape.follow(p, id, { lastEventId }),
      followInto: (p, id, opts, emit) => Stream.runForEach(shape.follow(p, id, opts), emit),
      follow: (p, id, opts) =>
        Stream.unwrap(Effect.suspend(() => {
          calls.follow += 1
          const route = "GET /v1/runs/{id}/events"
          if (faults.followFailures > 0) { faults.followFailures -= 1; return Effect.fail(unavailable(p, route)) }
          if (faults.followDefects > 0) { faults.followDefects -= 1; return Effect.die("follower test defect") }
          if (faults.down) return Effect.fail(unavailable(p, route))
          if (faults.followEnds > 0) { faults.followEnds -= 1; return Effect.succeed(Stream.empty) }
          const run = runs.get(id)
          if (run === undefined) {
            const gone = makeEvent(null, { event: "run.interrupted", error: "Hermes no longer knows this run" })
            return Effect.succeed(Stream.make(gone))
          }
          let cursor = options.unnumbered === true
            ? (run.subscribed ? run.events.length : 0)
            : opts?.lastEventId === undefined ? 0 : opts.lastEventId + 1
          run.subscribed = true
          calls.open += 1
          return Effect.succeed(run.version.changes.pipe(
            Stream.mapConcat(() => {
              const out = run.events.slice(cursor)
              cursor = run.events.length
              return out
            }),
            Stream.takeUntil((e) => TERMINAL_EVENTS.has(e.event)),
            Stream.interruptWhen(Deferred.await(cut)),
            Stream.ensuring(Effect.sync(() => { calls.open -= 1 }))
          ))
        })),
      approval: (p, id, body) =>
        guard(p, "POST /v1/runs/{id}/approval", Effect.gen(function* () {
          const r = yield* get(p, "POST /v1/runs/{id}/approval", id)
          if (r.pendingApproval === null) return yield* refusal(p, "POST /v1/runs/{id}/approval", 409, "approval_not_pending")
          yield* emit(id, "approval.responded", { choice: body.choice, resolved: 1, request_id: r.pendingApproval })
        })),
      steer: (p, id, input) =>
        guard(p, "POST /v1/runs/{id}/steer", Effect.gen(function* () {
          const r = yield* get(p, "POST /v1/runs/{id}/steer", id)
          if (r.status !== "running") return yield* refusal(p, "POST /v1/runs/{id}/steer", 409, "run_not_accepting_steer")
          calls.steer.push(input)
          yield* emit(id, "run.steered", { accepted: true })
        })),
      stop: (p, id) =>
        guard(p, "POST /v1/runs/{id}/stop", Effect.gen(function* () {
          const r = yield* get(p, "POST /v1/runs/{id}/stop", id)
          calls.stop.push(id)
          // As the released builds: a finished run has no live task to stop.
          if (TERMINAL_STATUSES.has(r.status)) return yield* refusal(p, "POST /v1/runs/{id}/stop", 404, "run_not_found")
          const approval = r.pendingApproval
          r.status = "stopping"
          if (approval !== null) yield* emit(id, "approval.responded", { choice: "deny", resolved: 1, request_id: approval })
          if (options.stopEnds ?? true) yield* emit(id, "run.cancelled")
          if ((options.stopAnswerDelayMs ?? 0) > 0) yield* Effect.sleep(options.stopAnswerDelayMs ?? 0)
        })),
      clarify: (p, id, body) =>
        guard(p, "POST /v1/runs/{id}/clarify", Effect.gen(function* () {
          if ((options.clarifyReachDelayMs ?? 0) > 0) yield* Effect.sleep(options.clarifyReachDelayMs ?? 0)
          const r = yield* get(p, "POST /v1/runs/{id}/clarify", id)
          if (r.pendingClarify !== body.clarifyId) return yield* refusal(p, "POST /v1/runs/{id}/clarify", 409, "clarify_not_pending")
          calls.clarify.push(body.response)
          yield* emit(id, "clarify.responded", { clarify_id: body.clarifyId, outcome: "answered" })
          if ((options.clarifyAnswerDelayMs ?? 0) > 0) yield* Effect.sleep(options.clarifyAnswerDelayMs ?? 0)
        }))
    })

    return {
      shape,
      layer: Layer.succeed(HermesClient, shape),
      runs,
      calls,
      faults,
      emit,
      complete,
      /**
       * The operator's next configuration for a profile (seen by services built afterwards): a
       * changed profile, or none when it was removed.
       */
      reconfigure: (agent: string, next: HermesProfile | undefined) =>
        Effect.sync(() => {
          const at = profiles.findIndex((p) => p.agent === agent)
          if (at >= 0) profiles.splice(at, 1, ...(next === undefined ? [] : [next]))
        }),
      /** Hermes forgets the run (its restart dropped it). */
      forget: (id: string) => Effect.sync(() => { runs.delete(id) }),
      /**
       * Ends every open event stream without its terminal event, as Hermes 0.20 does to a
       * subscriber whose frames another subscriber took; streams opened afterwards are not cut.
       */
      cutStreams: Effect.suspend(() => {
        const done = cut
        cut = Effect.runSync(Deferred.make<void>())
        return Deferred.succeed(done, undefined)
      }),
      /**
       * Hermes ends the run (completed, or as `status` says) on its side only: the bridge sees it
       * in the status, not on a stream.
       */
      finishQuietly: (id: string, output: string, status: "completed" | "cancelled" = "completed") => Effect.sync(() => {
        const r = runs.get(id)
        if (r !== undefined) { r.status = status; r.output = output }
      }),
      deltas: (id: string, parts: ReadonlyArray<string>) =>
        Effect.forEach(parts, (delta) => emit(id, "message.delta", { delta }), { discard: true })
    }
  })

export type FakeHermes = Effect.Effect.Success<ReturnType<typeof makeFakeHermes>>
