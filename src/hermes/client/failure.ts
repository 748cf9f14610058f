/**
 * The Hermes adapter's own errors: what went wrong talking to Hermes, in Hermes's terms. The client
 * fails with these and never with the bridge's errors; the services turn them into `bridge.*` in one
 * table (`services/hermes-failures/hermesErrors.ts`). Kept in Hermes's terms so the retry policy can look at HTTP
 * details (status, `Retry-After`) that the bridge's errors deliberately do not carry.
 *
 * Every failure says where it happened: `agent` (`hermes` or `hermes/<profile>`, what the bridge's
 * messages name) and `route` (`POST /v1/runs/{id}/steer`: the method and the route's template, never
 * a URL or a run id).
 */
import { Data, Duration, Option } from "effect"

/** Where a failure happened. */
export interface HermesCallSite {
  /** The public agent id of the profile: `hermes` or `hermes/<profile>`. */
  readonly agent: string
  /** The method and route template, e.g. `GET /v1/runs/{id}/events`. */
  readonly route: string
}

/** No answer at all: connection refused or reset, DNS failure, the stream broke. */
export class HermesTransport extends Data.TaggedError("HermesTransport")<HermesCallSite & { readonly detail: string }> {}

/** No answer within the profile's timeout. */
export class HermesTimeout extends Data.TaggedError("HermesTimeout")<HermesCallSite & { readonly afterMs: number }> {}

/** Hermes answered with a non-2xx status. `code` is the error envelope's `code`, when there is one. */
export class HermesStatus extends Data.TaggedError("HermesStatus")<HermesCallSite & {
  readonly status: number
  readonly code: string | null
  /** The error envelope's `message`, when there is one. */
  readonly detail: string | null
  readonly retryAfter: Option.Option<Duration.Duration>
}> {}

/** Hermes answered 2xx with a body the bridge cannot read. */
export class HermesBadAnswer extends Data.TaggedError("HermesBadAnswer")<HermesCallSite & { readonly detail: string }> {}

/** The bridge holds no key for the profile, so it does not call. */
export class HermesNoKey extends Data.TaggedError("HermesNoKey")<HermesCallSite> {}

/**
 * This Hermes build does not offer what the call needs (its capabilities lack `feature`), so the
 * bridge does not call: a build without the route answers a plain-text 404 that says nothing about
 * the run.
 */
export class HermesLacks extends Data.TaggedError("HermesLacks")<HermesCallSite & {
  /** The capability flag, e.g. `run_steer`. */
  readonly feature: string
  /** What the caller wanted, in words: "steer a running run". */
  readonly action: string
}> {}

/** No configured profile answers to this agent id (nothing was called). */
export class HermesNoProfile extends Data.TaggedError("HermesNoProfile")<{ readonly agent: string }> {}

export type HermesFailure = HermesTransport | HermesTimeout | HermesStatus | HermesBadAnswer | HermesNoKey | HermesLacks

/**
 * Hermes's error codes that name a situation a caller may act on: the run is unknown or not running,
 * nothing is pending, an idempotency key is refused. Any other code is a plain refusal. Each operation
 * says which of them it reports (`OPERATION_CODES`, `operations.ts`).
 */
export type HermesCode =
  | "run_not_found" | "run_not_accepting_steer" | "steer_not_accepted" | "run_not_active"
  | "clarify_not_pending" | "approval_not_active" | "approval_not_pending"
  | "idempotency_key_conflict" | "invalid_idempotency_key"

/**
 * Hermes said, in its JSON error envelope, that it does not know the run. A 404 without the
 * envelope (aiohttp's plain-text `404: Not Found` for a route the build lacks) says nothing about it.
 */
export const saysRunUnknown = (f: HermesFailure): boolean =>
  f._tag === "HermesStatus" && f.status === 404 && f.code === "run_not_found"

/** The failure in a few words and Hermes's status, for one log line (no URL, no key). */
export const failureLog = (f: HermesFailure): { readonly problem: string; readonly hermes_status?: number } => {
  switch (f._tag) {
    case "HermesStatus":
      return { problem: f.code === null ? `status ${f.status}` : `status ${f.status} ${f.code}`, hermes_status: f.status }
    case "HermesTransport":
      return { problem: f.detail }
    case "HermesTimeout":
      return { problem: `no answer within ${f.afterMs} ms` }
    case "HermesBadAnswer":
      return { problem: f.detail }
    case "HermesNoKey":
      return { problem: "no API key for the profile" }
    case "HermesLacks":
      return { problem: `this build lacks ${f.feature}` }
  }
}

/** Failures a repeat of the same safe request may cure. */
export const isTransient = (f: HermesFailure): boolean =>
  f._tag === "HermesTransport" || f._tag === "HermesTimeout" ||
  (f._tag === "HermesStatus" && (f.status === 429 || f.status === 502 || f.status === 503 || f.status === 504 || f.status === 500))

/**
 * Hermes did not admit a start: 429 (its cap on runs in flight, `rate_limit_exceeded`) or 503
 * `gateway_draining`. Nothing was started, so the start may be made again on any build, with or
 * without an idempotency key: the bridge's queue (services/runs/admission.ts) holds it meanwhile.
 */
export const isNotAdmitted = (f: HermesFailure): f is HermesStatus =>
  f._tag === "HermesStatus" && (f.status === 429 || (f.status === 503 && f.code === "gateway_draining"))

/** `Retry-After` as seconds or an HTTP date; absent or unreadable is none. */
export const parseRetryAfter = (header: string | undefined, now = Date.now()): Option.Option<Duration.Duration> => {
  if (header === undefined) return Option.none()
  const value = header.trim()
  if (/^\d+$/.test(value)) return Option.some(Duration.seconds(Number(value)))
  const at = Date.parse(value)
  return Number.isNaN(at) ? Option.none() : Option.some(Duration.millis(Math.max(0, at - now)))
}

/** A readable reason from a transport error's cause (`ECONNREFUSED`, `ENOTFOUND`, ...). */
export const transportDetail = (cause: unknown): string => {
  const seen = new Set<unknown>()
  let c: unknown = cause
  while (typeof c === "object" && c !== null && !seen.has(c)) {
    seen.add(c)
    const code = (c as { code?: unknown }).code
    if (typeof code === "string" && code !== "") return code
    c = (c as { cause?: unknown }).cause
  }
  return cause instanceof Error ? cause.message : "connection failed"
}
