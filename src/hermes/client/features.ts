/**
 * Feature detection from `GET /v1/capabilities`, never from a version number. A missing or non-true
 * flag means "not supported"; a build without the endpoint (404) supports nothing optional.
 * Answers are cached per profile and refreshed after `ttl`; failures are not cached.
 */
import { Cache, Cause, Duration, Effect, Exit } from "effect"
import type { HermesFeatures } from "./HermesClient.ts"

type Json = { readonly [k: string]: unknown }

const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)
const flag = (features: Json, name: string) => features[name] === true

export const noFeatures: HermesFeatures = {
  runSubmission: false,
  runStatus: false,
  runEventsSse: false,
  runStop: false,
  runApprovalResponse: false,
  runSteer: false,
  runClarify: false,
  clarifyBody: "response",
  idempotency: { supported: false, durable: false, retentionSeconds: 0 },
  sessionKeyHeader: null,
  eventReplay: null
}

/**
 * The clarify body shape. The fork that takes `{clarify_id, responses: [...]}` says so in its
 * `endpoints.run_clarify` description; anything else gets Hermes's `{clarify_id, response}`.
 */
const clarifyBodyOf = (endpoint: unknown): HermesFeatures["clarifyBody"] =>
  JSON.stringify(endpoint ?? null).includes("\"responses\"") ? "responses" : "response"

export const parseFeatures = (body: {
  readonly features?: { readonly [k: string]: unknown } | undefined
  readonly endpoints?: { readonly [k: string]: unknown } | undefined
}): HermesFeatures => {
  const f: Json = body.features ?? {}
  const idem = f.runs_idempotency
  const idempotency = isObject(idem) && idem.supported === true
    ? {
        supported: true,
        durable: idem.durable === true,
        retentionSeconds: typeof idem.retention_seconds === "number" ? idem.retention_seconds : 0
      }
    : idem === true
    ? { supported: true, durable: false, retentionSeconds: 0 }
    : noFeatures.idempotency
  const header = f.session_key_header
  return {
    runSubmission: flag(f, "run_submission"),
    runStatus: flag(f, "run_status"),
    runEventsSse: flag(f, "run_events_sse"),
    runStop: flag(f, "run_stop"),
    runApprovalResponse: flag(f, "run_approval_response"),
    runSteer: flag(f, "run_steer"),
    runClarify: flag(f, "run_clarify"),
    clarifyBody: clarifyBodyOf(body.endpoints?.run_clarify),
    idempotency,
    sessionKeyHeader: typeof header === "string" && header !== "" ? header : null,
    // Not in the capabilities: the client adds what it saw on the profile's streams.
    eventReplay: null
  }
}

/**
 * The optional features the bridge reports per profile (`doctor`, `agents_list`), from the same
 * `HermesFeatures` the client's operations read: false where the profile lacks one, null where it
 * is not known yet (event replay before a stream of the profile was read).
 */
export interface OptionalFeatures {
  /** `run_steer`: without it `agent_run_steer` is refused and Hermes is not called. */
  readonly steer: boolean
  /** Numbered frames: a dropped stream resumes with `Last-Event-ID` instead of polling the status. */
  readonly event_replay: boolean | null
  /** `runs_idempotency` supported and durable: a repeated start with one key is the same run. */
  readonly durable_idempotency: boolean
}

export const optionalFeatures = (f: HermesFeatures): OptionalFeatures => ({
  steer: f.runSteer,
  event_replay: f.eventReplay,
  durable_idempotency: f.idempotency.supported && f.idempotency.durable
})

/** The features of `o` that the profile lacks and those not known yet, by their names above. */
export const featureGaps = (o: OptionalFeatures) => {
  const names = Object.keys(o) as Array<keyof OptionalFeatures>
  return { lacks: names.filter((n) => o[n] === false), unknown: names.filter((n) => o[n] === null) }
}

/** How many times a caller starts a lookup again after another caller's was interrupted under it. */
const LOOKUP_RETRIES = 8

/**
 * A per-profile cache of `lookup`: successes live `ttl`, failures are asked again next time.
 *
 * Effect's `Cache` runs a lookup in the fiber of the caller that missed, and when that caller is
 * interrupted (the agents list's probe gives up after 1.8 s, doctor after 3 s, a client cancels its
 * call) every caller waiting on the same lookup is interrupted with it: a client's steer or start
 * ended as "interrupted" because someone else's probe timed out. So `get` starts the lookup again
 * when it sees an interruption that is not its own (its own is never caught: a fiber being
 * interrupted skips failure handlers), and drops a failure at once rather than keeping it until the
 * clock moves past its zero time to live.
 */
export const makeFeatureCache = <E>(lookup: (profile: string) => Effect.Effect<HermesFeatures, E>, ttl: Duration.DurationInput) =>
  Effect.map(
    Cache.makeWith({
      capacity: 256,
      lookup,
      timeToLive: (exit) => (Exit.isSuccess(exit) ? ttl : Duration.zero)
    }),
    (cache) => {
      const get = (profile: string, retries: number): Effect.Effect<HermesFeatures, E> =>
        cache.get(profile).pipe(
          Effect.catchAllCause((cause) =>
            Cause.isInterruptedOnly(cause) && retries > 0
              ? get(profile, retries - 1)
              : Effect.zipRight(cache.invalidate(profile), Effect.failCause(cause))
          )
        )
      return { get: (profile: string) => get(profile, LOOKUP_RETRIES) }
    }
  )
