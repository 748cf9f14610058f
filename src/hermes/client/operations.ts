/**
 * The Hermes operations of one client, over `HermesHttp`: discovery, start, status, a single event
 * stream, and the run controls. They fail with the adapter's own errors (`failure.ts`), in Hermes's
 * terms; the services map those to the bridge's (`services/hermes-failures/hermesErrors.ts`).
 */
import { Duration, Effect, Option, Schema, type Stream } from "effect"
import type { ApprovalChoice } from "../../domain/approvals.ts"
import { type HermesCode, type HermesFailure, HermesLacks, HermesStatus, HermesTimeout, HermesTransport, transportDetail } from "./failure.ts"
import { noFeatures, parseFeatures } from "./features.ts"
import type {
  HermesClientShape, HermesEvent, HermesFeatures, HermesHealth, HermesProfile, HermesRunStatus, StartRunRequest, StartRunResult
} from "./HermesClient.ts"
import type { HermesHttp } from "./http.ts"
import { CapabilitiesBody, HealthBody, ModelsBody, type RunStatusBody, RunStatusBody as RunStatusSchema, StartBody } from "./schemas.ts"
import { pushedStream } from "./pushedStream.ts"
import { responseBody } from "./responseBody.ts"
import { readBodyEvents } from "./sseBody.ts"
import { isBodyTimeout } from "./streamDispatcher.ts"

/** The control routes' answers carry nothing the bridge needs beyond "2xx". */
const AnyBody = Schema.Unknown
const noRetry = Option.none<Duration.Duration>()

/** A run's route: the path with the run's id, and the template failures and logs name. */
const runRoute = (method: "GET" | "POST", id: string, tail = "") => ({
  path: `/v1/runs/${encodeURIComponent(id)}${tail}`,
  route: `${method} /v1/runs/{id}${tail}`
})

const definedOnly = <A extends object>(o: A) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof A]: Exclude<A[K], undefined> }

const toRunStatus = (b: RunStatusBody): HermesRunStatus => ({
  runId: b.run_id,
  status: b.status,
  output: b.output ?? null,
  usage: b.usage === undefined || b.usage === null ? null : definedOnly(b.usage),
  error: b.error ?? null,
  approval: b.approval ?? null,
  clarification: b.clarification === undefined || b.clarification === null
    ? null
    : { ...b.clarification, choices: b.clarification.choices ?? null },
  pendingSteer: b.pending_steer ?? null
})

/** Capabilities straight from Hermes; a build without the endpoint (404) supports nothing optional. */
export const fetchFeatures = (http: HermesHttp, p: HermesProfile): Effect.Effect<HermesFeatures, HermesFailure> =>
  http.json({ profile: p, method: "GET", path: "/v1/capabilities", auth: true, retry: true }, CapabilitiesBody).pipe(
    Effect.map((a) => parseFeatures(a.body)),
    Effect.catchIf((f): f is HermesStatus => f._tag === "HermesStatus" && f.status === 404, () => Effect.succeed(noFeatures))
  )

/** The codes of a run Hermes does not know, of a request it does not hold pending, and of a run not running. */
const RUN_CONTROL = [
  "run_not_found", "clarify_not_pending", "approval_not_active", "approval_not_pending",
  "run_not_accepting_steer", "steer_not_accepted", "run_not_active"
] as const satisfies ReadonlyArray<HermesCode>

/**
 * The Hermes codes each operation reports as themselves, its raise list: the services map each to
 * the bridge's error (`services/hermes-failures/`, through `bridgeHermes`); any other code, and every
 * code of an operation not listed here (`health`, `models`, `features`, `follow`, which ends a run
 * Hermes forgot itself), is a plain refusal carrying Hermes's status. A new operation adds its line.
 */
export const OPERATION_CODES = {
  start: ["idempotency_key_conflict", "invalid_idempotency_key"],
  status: ["run_not_found"],
  events: ["run_not_found"],
  approval: RUN_CONTROL,
  steer: ["run_not_found", "run_not_accepting_steer", "steer_not_accepted", "run_not_active"],
  // `stop` reads newer builds' 409 `run_not_active` as 404 `run_not_found` itself (below).
  stop: ["run_not_found"],
  clarify: RUN_CONTROL
} as const satisfies { readonly [K in keyof HermesClientShape]?: ReadonlyArray<HermesCode> }

export interface OperationsDeps {
  readonly http: HermesHttp
  /** The profile's features, cached (failures unmapped). */
  readonly features: (p: HermesProfile) => Effect.Effect<HermesFeatures, HermesFailure>
  /**
   * The HTTP of event streams: its dispatcher ends a body silent for `streamIdleTimeout`
   * (streamDispatcher.ts), which the stream reports as a `HermesTimeout`.
   */
  readonly streams: HermesHttp
  readonly streamIdleTimeout: Duration.Duration
}

export const makeOperations = ({ http, features, streams, streamIdleTimeout }: OperationsDeps) => {
  type Where = string | { readonly path: string; readonly route: string }
  const at = (where: Where) => (typeof where === "string" ? { path: where } : where)
  const get = <A, I>(p: HermesProfile, where: Where, schema: Schema.Schema<A, I>, auth = true) =>
    http.json({ profile: p, method: "GET", ...at(where), auth, retry: true }, schema)
  const post = <A, I>(p: HermesProfile, where: Where, body: unknown, schema: Schema.Schema<A, I>) =>
    http.json({ profile: p, method: "POST", ...at(where), auth: true, body, retry: false }, schema)

  /** Health needs no key, so it never fails with `HermesNoKey`. */
  const health = (p: HermesProfile): Effect.Effect<HermesHealth, HermesFailure> =>
    get(p, "/health", HealthBody, false).pipe(
      Effect.map((a) => ({ status: a.body.status, version: typeof a.body.version === "string" ? a.body.version : null }))
    )

  const models = (p: HermesProfile): Effect.Effect<ReadonlyArray<string>, HermesFailure> =>
    get(p, "/v1/models", ModelsBody).pipe(Effect.map((a) => a.body.data.map((m) => m.id)))

  const start = (p: HermesProfile, req: StartRunRequest): Effect.Effect<StartRunResult, HermesFailure> =>
    Effect.gen(function* () {
      const f = yield* features(p)
      const headers: Record<string, string> = {}
      if (req.sessionKey !== undefined) headers[f.sessionKeyHeader ?? "X-Hermes-Session-Key"] = req.sessionKey
      // Only a build that honours Idempotency-Key gets one, and only then is a repeat safe.
      const idempotent = req.idempotencyKey !== undefined && f.idempotency.supported
      if (idempotent && req.idempotencyKey !== undefined) headers["Idempotency-Key"] = req.idempotencyKey
      const body = {
        input: req.input,
        ...(req.instructions !== undefined ? { instructions: req.instructions } : {}),
        ...(req.reasoningEffort !== undefined ? { model_options: { reasoning_effort: req.reasoningEffort } } : {}),
        ...(f.runClarify ? { clarify: true } : {})
      }
      const answer = yield* http.json({ profile: p, method: "POST", path: "/v1/runs", auth: true, headers, body, retry: idempotent ? "start" : false }, StartBody)
      return {
        hermesRunId: answer.body.run_id,
        replayed: answer.body.replayed === true || answer.headers["idempotency-replayed"] === "true"
      } satisfies StartRunResult
    })

  const status = (p: HermesProfile, id: string): Effect.Effect<HermesRunStatus, HermesFailure> =>
    get(p, runRoute("GET", id), RunStatusSchema).pipe(Effect.map((a) => toRunStatus(a.body)))

  /**
   * One connection to the run's events, each handed to `onEvent` until it answers false; succeeds
   * when the stream ended (the follow decides what a failure or an early end means for the run).
   */
  const readEvents = (
    p: HermesProfile,
    id: string,
    lastEventId: number | null,
    onEvent: (e: HermesEvent) => Effect.Effect<boolean>
  ): Effect.Effect<void, HermesFailure> => {
    const route = runRoute("GET", id, "/events")
    const site = { agent: p.agent, route: route.route }
    // Hermes sends a keepalive at least every 30 s; silence beyond the limit is a dead link.
    const broke = (cause: unknown): HermesFailure => isBodyTimeout(cause)
      ? new HermesTimeout({ ...site, afterMs: Duration.toMillis(streamIdleTimeout) })
      : new HermesTransport({ ...site, detail: `the event stream broke (${transportDetail(cause)})` })
    return streams.open({
      profile: p, method: "GET", ...route, auth: true, retry: false,
      headers: { accept: "text/event-stream", ...(lastEventId === null ? {} : { "last-event-id": String(lastEventId) }) }
    }).pipe(Effect.flatMap((response) =>
      readBodyEvents(responseBody(response), broke, onEvent).pipe(
        // Keeps the response reachable while its body is read: the platform aborts the request of
        // a response collected unread (responseBody.ts).
        Effect.ensuring(Effect.sync(() => void response.status))
      )
    ))
  }

  /** `readEvents` as a stream (back-pressured: the reading waits while the consumer is busy). */
  const events = (p: HermesProfile, id: string, lastEventId: number | null): Stream.Stream<HermesEvent, HermesFailure> =>
    pushedStream((offer) => readEvents(p, id, lastEventId, (e) => Effect.as(offer(e), true)))

  const approval = (
    p: HermesProfile,
    id: string,
    body: { readonly choice: ApprovalChoice; readonly requestId?: string }
  ): Effect.Effect<void, HermesFailure> =>
    post(p, runRoute("POST", id, "/approval"), { choice: body.choice, ...(body.requestId !== undefined ? { request_id: body.requestId } : {}) }, AnyBody).pipe(
      Effect.asVoid
    )

  /** Only a build whose capabilities offer `run_steer` is asked: one without has no route. */
  const steer = (p: HermesProfile, id: string, input: string): Effect.Effect<void, HermesFailure> =>
    Effect.gen(function* () {
      const route = runRoute("POST", id, "/steer")
      if (!(yield* features(p)).runSteer) {
        yield* Effect.logWarning("Hermes trouble: this build lacks run_steer; the steer is refused without calling Hermes").pipe(
          Effect.annotateLogs({ route: route.route, agent: p.agent, hermes_run_id: id, next: "answering bridge.agent_refused" })
        )
        return yield* new HermesLacks({ agent: p.agent, route: route.route, feature: "run_steer", action: "steer a running run" })
      }
      yield* post(p, route, { input }, AnyBody)
    })

  /** Hermes has no live task for the run (404, or newer builds' 409 `run_not_active`): nothing to stop. */
  const stop = (p: HermesProfile, id: string): Effect.Effect<void, HermesFailure> =>
    post(p, runRoute("POST", id, "/stop"), {}, AnyBody).pipe(
      Effect.asVoid,
      Effect.mapError((f) =>
        f._tag === "HermesStatus" && f.status === 409 && f.code === "run_not_active"
          ? new HermesStatus({ ...f, status: 404, code: "run_not_found" })
          : f
      )
    )

  const clarify = (
    p: HermesProfile,
    id: string,
    body: { readonly clarifyId: string; readonly response: string | ReadonlyArray<string> | null }
  ): Effect.Effect<void, HermesFailure> =>
    Effect.gen(function* () {
      const f = yield* features(p)
      const route = runRoute("POST", id, "/clarify")
      if (!f.runClarify) {
        // Answered as Hermes answers a clarification that is not pending, without calling it.
        return yield* new HermesStatus({
          agent: p.agent, route: route.route, status: 409, code: "clarify_not_pending", detail: "this Hermes build has no clarification", retryAfter: noRetry
        })
      }
      const r = body.response
      // The one place the two clarify body shapes differ (docs/SIMULATOR.md).
      const payload = f.clarifyBody === "responses"
        ? { clarify_id: body.clarifyId, responses: r === null ? [] : typeof r === "string" ? [r] : r }
        : { clarify_id: body.clarifyId, response: r === null || typeof r === "string" ? r : r.join(", ") }
      yield* post(p, route, payload, AnyBody)
    })

  return { health, models, start, status, events, readEvents, approval, steer, stop, clarify }
}
