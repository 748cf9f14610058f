/**
 * The Hermes operations of one client, over `HermesHttp`: discovery, start, status, a single event
 * stream, and the run controls. Each one maps its failures to the bridge's errors (`errors.ts`)
 * with the specific errors its route may raise.
 */
import { Duration, Effect, Option, Schema, Stream } from "effect"
import { type AgentRefused, AgentUnavailable } from "../../domain/errors.ts"
import { type SpecificTag, toBridgeError } from "./errors.ts"
import { type HermesFailure, HermesLacks, HermesStatus, HermesTimeout, HermesTransport } from "./failure.ts"
import { noFeatures, parseFeatures } from "./features.ts"
import type {
  HermesCallError, HermesEvent, HermesFeatures, HermesHealth, HermesProfile, HermesRunStatus, StartRunRequest, StartRunResult
} from "./HermesClient.ts"
import type { HermesHttp } from "./http.ts"
import { CapabilitiesBody, HealthBody, ModelsBody, type RunStatusBody, RunStatusBody as RunStatusSchema, StartBody } from "./schemas.ts"
import { hermesEvents } from "./sse.ts"

/** The control routes' answers carry nothing the bridge needs beyond "2xx". */
const AnyBody = Schema.Unknown
const noRetry = Option.none<Duration.Duration>()

const runPath = (id: string, tail = "") => `/v1/runs/${encodeURIComponent(id)}${tail}`

export const mapFailure = <T extends SpecificTag>(p: HermesProfile, allowed: ReadonlyArray<T>) =>
  (f: HermesFailure) => toBridgeError(f, { agent: p.agent }, allowed)

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

export interface OperationsDeps {
  readonly http: HermesHttp
  /** The profile's features, cached (failures unmapped). */
  readonly features: (p: HermesProfile) => Effect.Effect<HermesFeatures, HermesFailure>
  /** An event stream that stays silent this long is treated as broken. */
  readonly streamIdleTimeout: Duration.Duration
}

export const makeOperations = ({ http, features, streamIdleTimeout }: OperationsDeps) => {
  const get = <A, I>(p: HermesProfile, path: string, schema: Schema.Schema<A, I>, auth = true) =>
    http.json({ profile: p, method: "GET", path, auth, retry: true }, schema)
  const post = <A, I>(p: HermesProfile, path: string, body: unknown, schema: Schema.Schema<A, I>) =>
    http.json({ profile: p, method: "POST", path, auth: true, body, retry: false }, schema)

  /** Health needs no key, so it never fails with `agent_unkeyed`. */
  const health = (p: HermesProfile): Effect.Effect<HermesHealth, AgentUnavailable | AgentRefused> =>
    get(p, "/health", HealthBody, false).pipe(
      Effect.map((a) => ({ status: a.body.status, version: typeof a.body.version === "string" ? a.body.version : null })),
      Effect.mapError((f) => {
        const e = mapFailure(p, [])(f)
        return e._tag === "AgentUnkeyed" ? new AgentUnavailable({ message: e.message }) : e
      })
    )

  const models = (p: HermesProfile): Effect.Effect<ReadonlyArray<string>, HermesCallError> =>
    get(p, "/v1/models", ModelsBody).pipe(
      Effect.map((a) => a.body.data.map((m) => m.id)),
      Effect.mapError(mapFailure(p, []))
    )

  const start = (p: HermesProfile, req: StartRunRequest) =>
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
      const answer = yield* http.json({ profile: p, method: "POST", path: "/v1/runs", auth: true, headers, body, retry: idempotent }, StartBody)
      return {
        hermesRunId: answer.body.run_id,
        replayed: answer.body.replayed === true || answer.headers["idempotency-replayed"] === "true"
      } satisfies StartRunResult
    }).pipe(Effect.mapError(mapFailure(p, ["IdempotencyConflict", "InvalidIdempotencyKey"])))

  const statusRaw = (p: HermesProfile, id: string) =>
    get(p, runPath(id), RunStatusSchema).pipe(Effect.map((a) => toRunStatus(a.body)))

  const status = (p: HermesProfile, id: string) => statusRaw(p, id).pipe(Effect.mapError(mapFailure(p, ["RunNotFound"])))

  /** One connection to the run's events, failures unmapped (the follower decides on them). */
  const eventsRaw = (p: HermesProfile, id: string, lastEventId: number | null): Stream.Stream<HermesEvent, HermesFailure> =>
    Stream.unwrap(
      http.open({
        profile: p, method: "GET", path: runPath(id, "/events"), auth: true, retry: false,
        headers: { accept: "text/event-stream", ...(lastEventId === null ? {} : { "last-event-id": String(lastEventId) }) }
      }).pipe(Effect.map((response) =>
        hermesEvents(
          response.stream.pipe(
            Stream.mapError((e): HermesFailure => new HermesTransport({ detail: `the event stream broke (${e.reason})` })),
            // Hermes sends a keepalive at least every 30 s; silence beyond the limit is a dead link.
            Stream.timeoutFail(() => new HermesTimeout({ afterMs: Duration.toMillis(streamIdleTimeout) }), streamIdleTimeout)
          )
        )
      ))
    )

  const events = (p: HermesProfile, id: string, lastEventId?: number) =>
    eventsRaw(p, id, lastEventId ?? null).pipe(Stream.mapError(mapFailure(p, ["RunNotFound"])))

  const approval = (p: HermesProfile, id: string, body: { readonly choice: "once" | "session" | "always" | "deny"; readonly requestId?: string }) =>
    post(p, runPath(id, "/approval"), { choice: body.choice, ...(body.requestId !== undefined ? { request_id: body.requestId } : {}) }, AnyBody).pipe(
      Effect.asVoid,
      Effect.mapError(mapFailure(p, ["RunNotFound", "NoPendingRequest", "RunNotRunning"]))
    )

  /** Only a build whose capabilities offer `run_steer` is asked: one without has no route. */
  const steer = (p: HermesProfile, id: string, input: string) =>
    Effect.gen(function* () {
      if (!(yield* features(p)).runSteer) {
        yield* Effect.logWarning("Hermes trouble: this build lacks run_steer; the steer is refused without calling Hermes").pipe(
          Effect.annotateLogs({ route: "POST /v1/runs/{id}/steer", agent: p.agent, hermes_run_id: id, next: "answering bridge.agent_refused" })
        )
        return yield* new HermesLacks({ feature: "run_steer", action: "steer a running run" })
      }
      yield* post(p, runPath(id, "/steer"), { input }, AnyBody)
    }).pipe(Effect.mapError(mapFailure(p, ["RunNotFound", "RunNotRunning"])))

  /** Hermes has no live task for the run (404, or newer builds' 409 `run_not_active`): nothing to stop. */
  const stop = (p: HermesProfile, id: string) =>
    post(p, runPath(id, "/stop"), {}, AnyBody).pipe(
      Effect.asVoid,
      Effect.mapError((f) =>
        f._tag === "HermesStatus" && f.status === 409 && f.code === "run_not_active"
          ? new HermesStatus({ ...f, status: 404, code: "run_not_found" })
          : f
      ),
      Effect.mapError(mapFailure(p, ["RunNotFound"]))
    )

  const clarify = (p: HermesProfile, id: string, body: { readonly clarifyId: string; readonly response: string | ReadonlyArray<string> | null }) =>
    Effect.gen(function* () {
      const f = yield* features(p)
      if (!f.runClarify) {
        return yield* new HermesStatus({ status: 409, code: "clarify_not_pending", detail: "this Hermes build has no clarification", retryAfter: noRetry })
      }
      const r = body.response
      // The one place the two clarify body shapes differ (docs/SIMULATOR.md).
      const payload = f.clarifyBody === "responses"
        ? { clarify_id: body.clarifyId, responses: r === null ? [] : typeof r === "string" ? [r] : r }
        : { clarify_id: body.clarifyId, response: r === null || typeof r === "string" ? r : r.join(", ") }
      yield* post(p, runPath(id, "/clarify"), payload, AnyBody)
    }).pipe(Effect.mapError(mapFailure(p, ["RunNotFound", "NoPendingRequest", "RunNotRunning"])))

  return { health, models, start, status, statusRaw, events, eventsRaw, approval, steer, stop, clarify }
}
