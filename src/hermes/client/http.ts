/**
 * One place that turns "call this Hermes route of this profile" into an HTTP request and its
 * answer into either a body or a `HermesFailure`: base URL, bearer key, JSON, the profile timeout,
 * the error envelope and `Retry-After`. Never sets `Origin` (Hermes answers a foreign Origin with a
 * bare 403), and switches off trace-header propagation so requests carry only what Hermes expects.
 */
import { Headers, HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import type { HttpClientError } from "@effect/platform"
import { Duration, Effect, Either, Option, Schema } from "effect"
import {
  HermesBadAnswer,
  type HermesCallSite,
  type HermesFailure,
  HermesNoKey,
  HermesStatus,
  HermesTimeout,
  HermesTransport,
  parseRetryAfter,
  transportDetail
} from "./failure.ts"
import type { HermesProfile } from "./HermesClient.ts"
import { ErrorEnvelope } from "./schemas.ts"
import { hermesRetrySchedule, hermesStartRetrySchedule } from "./schedules.ts"
import { measureHermes } from "../../common/Metrics.ts"

export interface HermesCall {
  readonly profile: HermesProfile
  readonly method: "GET" | "POST"
  /** Path below the profile's base URL, e.g. `/v1/runs`. */
  readonly path: string
  /**
   * The route's template for failures and logs, e.g. `POST /v1/runs/{id}/steer` (no run id).
   * Default: the method and `path`, for routes without a parameter.
   */
  readonly route?: string | undefined
  /** Whether the route needs the key (every route but health). */
  readonly auth: boolean
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly body?: unknown
  /** Whether a failed attempt may be repeated (see `hermesRetrySchedule`); `start`: a start's (`hermesStartRetrySchedule`). */
  readonly retry: boolean | "start"
}

export interface HermesHttp {
  /**
   * Sends the call; a 2xx response, else the failure. Only the wait for the headers is timed, with
   * one second more than other calls (Hermes's events route waits up to 1 s for a new run).
   */
  readonly open: (call: HermesCall) => Effect.Effect<HttpClientResponse.HttpClientResponse, HermesFailure>
  /** Sends the call and decodes the JSON answer; the whole exchange is timed and retried as asked. */
  readonly json: <A, I>(call: HermesCall, schema: Schema.Schema<A, I>) => Effect.Effect<JsonAnswer<A>, HermesFailure>
  readonly timeout: Duration.Duration
}

export interface JsonAnswer<A> {
  readonly body: A
  readonly headers: Headers.Headers
}

const joinUrl = (base: string, path: string) => `${base.replace(/\/+$/, "")}${path}`

/** Where a call's failures happened: the profile's agent id and the route's template. */
export const callSite = (call: HermesCall): HermesCallSite => ({
  agent: call.profile.agent,
  route: call.route ?? `${call.method} ${call.path}`
})

const fromClientError = (site: HermesCallSite) => (e: HttpClientError.HttpClientError): HermesFailure =>
  e._tag === "RequestError" && e.reason === "InvalidUrl"
    ? new HermesTransport({ ...site, detail: "invalid Hermes URL" })
    : new HermesTransport({ ...site, detail: transportDetail(e.cause) })

/** A non-2xx answer as a failure, with the envelope's code and message when Hermes sent one. */
const statusFailure = (site: HermesCallSite, response: HttpClientResponse.HttpClientResponse): Effect.Effect<HermesFailure> =>
  response.text.pipe(
    Effect.orElseSucceed(() => ""),
    Effect.map((text) => {
      const envelope = Either.getOrUndefined(Schema.decodeUnknownEither(Schema.parseJson(ErrorEnvelope))(text))
      return new HermesStatus({
        ...site,
        status: response.status,
        code: envelope?.error.code ?? null,
        detail: envelope?.error.message ?? null,
        retryAfter: parseRetryAfter(response.headers["retry-after"])
      })
    })
  )

export const makeHermesHttp = (base: HttpClient.HttpClient, timeout: Duration.Duration): HermesHttp => {
  const client = base.pipe(HttpClient.withTracerPropagation(false))
  const timed = <A>(call: HermesCall, eff: Effect.Effect<A, HermesFailure>, limit: Duration.Duration = timeout) =>
    Effect.timeoutFail(eff, { duration: limit, onTimeout: () => new HermesTimeout({ ...callSite(call), afterMs: Duration.toMillis(limit) }) })
  // Hermes's events route may itself wait up to 1 s for a just-started run before answering.
  const openTimeout = Duration.sum(timeout, Duration.seconds(1))

  const request = (call: HermesCall): Effect.Effect<HttpClientRequest.HttpClientRequest, HermesFailure> =>
    Effect.gen(function* () {
      let req = HttpClientRequest.make(call.method)(joinUrl(call.profile.baseUrl, call.path)).pipe(
        HttpClientRequest.acceptJson,
        HttpClientRequest.setHeaders(call.headers ?? {})
      )
      if (call.auth) {
        if (Option.isNone(call.profile.key)) return yield* new HermesNoKey(callSite(call))
        req = HttpClientRequest.bearerToken(req, call.profile.key.value)
      }
      if (call.body !== undefined) req = HttpClientRequest.bodyUnsafeJson(req, call.body)
      return req
    })

  const send = (call: HermesCall) =>
    Effect.gen(function* () {
      const req = yield* request(call)
      const response = yield* client.execute(req).pipe(Effect.mapError(fromClientError(callSite(call))))
      if (response.status >= 200 && response.status < 300) return response
      return yield* Effect.flip(statusFailure(callSite(call), response))
    })

  const retried = <A>(call: HermesCall, eff: Effect.Effect<A, HermesFailure>) =>
    call.retry === "start" ? Effect.retry(eff, hermesStartRetrySchedule) : call.retry ? Effect.retry(eff, hermesRetrySchedule) : eff

  return {
    timeout,
    open: (call) => retried(call, measureHermes(call.profile.name)(timed(call, send(call), openTimeout))),
    json: (call, schema) =>
      retried(call, measureHermes(call.profile.name)(timed(call, Effect.gen(function* () {
        const response = yield* send(call)
        const text = yield* response.text.pipe(Effect.mapError(fromClientError(callSite(call))))
        const body = yield* Schema.decodeUnknown(Schema.parseJson(schema))(text).pipe(
          Effect.mapError(() => new HermesBadAnswer({ ...callSite(call), detail: `unexpected body from ${call.method} ${call.path}` }))
        )
        return { body, headers: response.headers }
      }))))
  }
}
