/**
 * The bridge's error model: one `Schema.TaggedError` per stable code of the failure table of docs/REFERENCE.md,
 * plus `auth.forbidden`, plus `bridge.invalid_input` (added beside the documented codes for arguments that
 * fail schema decoding where no more specific code exists), plus `bridge.quota_exceeded` (a client at one
 * of its per-client quotas: notes, open streams, push configs; `domain/limits.ts`).
 *
 * `ErrorTable` is the single place that maps each error to its code string and HTTP status. Other
 * modules raise these classes; a code is spelled outside it only where an answer leaves without a
 * typed failure to map: the HTTP app's last-resort 500 `bridge.internal` and OAuth's 401
 * `auth.unauthorized` (`edge/http/app.ts`), the A2A route's closed-request and incident answers
 * (`edge/a2a/routes.ts`) and the A2A stream's revocation frame (`edge/a2a/sse.ts`).
 */
import { Schema } from "effect"

const msg = { message: Schema.String }

export class AuthForbidden extends Schema.TaggedError<AuthForbidden>()("AuthForbidden", msg) {}
export class Unavailable extends Schema.TaggedError<Unavailable>()("Unavailable", msg) {}
export class UnknownAgent extends Schema.TaggedError<UnknownAgent>()("UnknownAgent", msg) {}
export class AgentUnkeyed extends Schema.TaggedError<AgentUnkeyed>()("AgentUnkeyed", msg) {}
export class AgentUnavailable extends Schema.TaggedError<AgentUnavailable>()("AgentUnavailable", msg) {}
/** Hermes refused the bridge's request. `hermesStatus` is Hermes's own HTTP status, if it answered. */
export class AgentRefused extends Schema.TaggedError<AgentRefused>()("AgentRefused", {
  message: Schema.String,
  hermesStatus: Schema.optional(Schema.Int.pipe(Schema.between(100, 599)))
}) {}
export class RunNotFound extends Schema.TaggedError<RunNotFound>()("RunNotFound", msg) {}
export class TooManyRuns extends Schema.TaggedError<TooManyRuns>()("TooManyRuns", msg) {}
/** A start Hermes has no capacity for, from a client whose queue is full (`bridge.max_queued_runs_per_client`): nothing was recorded. */
export class TooManyQueued extends Schema.TaggedError<TooManyQueued>()("TooManyQueued", msg) {}
export class IdempotencyConflict extends Schema.TaggedError<IdempotencyConflict>()("IdempotencyConflict", msg) {}
export class RunNotRunning extends Schema.TaggedError<RunNotRunning>()("RunNotRunning", msg) {}
export class NoPendingRequest extends Schema.TaggedError<NoPendingRequest>()("NoPendingRequest", msg) {}
export class InvalidSessionKey extends Schema.TaggedError<InvalidSessionKey>()("InvalidSessionKey", msg) {}
export class InvalidIdempotencyKey extends Schema.TaggedError<InvalidIdempotencyKey>()("InvalidIdempotencyKey", msg) {}
export class InvalidOffset extends Schema.TaggedError<InvalidOffset>()("InvalidOffset", msg) {}
export class StoreUnavailable extends Schema.TaggedError<StoreUnavailable>()("StoreUnavailable", msg) {}
export class MemoryDisabled extends Schema.TaggedError<MemoryDisabled>()("MemoryDisabled", msg) {}
export class MemoryInvalid extends Schema.TaggedError<MemoryInvalid>()("MemoryInvalid", msg) {}
export class MemoryFailed extends Schema.TaggedError<MemoryFailed>()("MemoryFailed", msg) {}
export class SkillInvalid extends Schema.TaggedError<SkillInvalid>()("SkillInvalid", msg) {}
export class SkillNotFound extends Schema.TaggedError<SkillNotFound>()("SkillNotFound", msg) {}
export class SkillReadonly extends Schema.TaggedError<SkillReadonly>()("SkillReadonly", msg) {}
export class SkillPendingElsewhere extends Schema.TaggedError<SkillPendingElsewhere>()("SkillPendingElsewhere", msg) {}
export class TooManyPending extends Schema.TaggedError<TooManyPending>()("TooManyPending", msg) {}
/**
 * A client holds all it may of one kind (memory notes or their bytes, open streams, push configs):
 * nothing was written or opened. The message names the quota and its config key.
 */
export class QuotaExceeded extends Schema.TaggedError<QuotaExceeded>()("QuotaExceeded", msg) {}
/** Arguments that fail schema decoding; the message names the field. */
export class InvalidInput extends Schema.TaggedError<InvalidInput>()("InvalidInput", msg) {}
/**
 * Any other failure. Only `incident` ever leaves the bridge; the cause is logged under it by the edge
 * and is deliberately not a field here, so it cannot be serialised by accident.
 */
export class Internal extends Schema.TaggedError<Internal>()("Internal", { incident: Schema.String }) {
  override get message() {
    return `internal error; incident ${this.incident} is logged on the bridge`
  }
}

export const BridgeError = Schema.Union(
  AuthForbidden, Unavailable, UnknownAgent, AgentUnkeyed, AgentUnavailable, AgentRefused, RunNotFound,
  TooManyRuns, TooManyQueued, IdempotencyConflict, RunNotRunning, NoPendingRequest, InvalidSessionKey, InvalidIdempotencyKey,
  InvalidOffset, StoreUnavailable, MemoryDisabled, MemoryInvalid, MemoryFailed, SkillInvalid, SkillNotFound,
  SkillReadonly, SkillPendingElsewhere, TooManyPending, QuotaExceeded, InvalidInput, Internal
)
export type BridgeError = typeof BridgeError.Type
export type BridgeErrorTag = BridgeError["_tag"]

/** Hermes's 4xx passes through, except 401/403 (the bridge's key was refused); everything else is 502. */
export const agentRefusedStatus = (hermesStatus: number | undefined): number =>
  hermesStatus !== undefined && hermesStatus >= 400 && hermesStatus < 500 && hermesStatus !== 401 && hermesStatus !== 403
    ? hermesStatus
    : 502

type Row<T extends BridgeErrorTag> = {
  readonly code: string
  readonly status: (e: Extract<BridgeError, { _tag: T }>) => number
}
const fixed = (code: string, status: number) => ({ code, status: () => status })

/** The one table: tag → stable code and HTTP status. A missing tag is a compile error. */
export const ErrorTable: { readonly [T in BridgeErrorTag]: Row<T> } = {
  AuthForbidden: fixed("auth.forbidden", 403),
  Unavailable: fixed("bridge.unavailable", 503),
  UnknownAgent: fixed("bridge.unknown_agent", 404),
  AgentUnkeyed: fixed("bridge.agent_unkeyed", 503),
  AgentUnavailable: fixed("bridge.agent_unavailable", 502),
  AgentRefused: { code: "bridge.agent_refused", status: (e) => agentRefusedStatus(e.hermesStatus) },
  RunNotFound: fixed("bridge.run_not_found", 404),
  TooManyRuns: fixed("bridge.too_many_runs", 429),
  TooManyQueued: fixed("bridge.too_many_queued", 429),
  IdempotencyConflict: fixed("bridge.idempotency_conflict", 409),
  RunNotRunning: fixed("bridge.run_not_running", 409),
  NoPendingRequest: fixed("bridge.no_pending_request", 409),
  InvalidSessionKey: fixed("bridge.invalid_session_key", 422),
  InvalidIdempotencyKey: fixed("bridge.invalid_idempotency_key", 422),
  InvalidOffset: fixed("bridge.invalid_offset", 422),
  StoreUnavailable: fixed("bridge.store_unavailable", 503),
  MemoryDisabled: fixed("bridge.memory_disabled", 503),
  MemoryInvalid: fixed("bridge.memory_invalid", 422),
  MemoryFailed: fixed("bridge.memory_failed", 502),
  SkillInvalid: fixed("bridge.skill_invalid", 422),
  SkillNotFound: fixed("bridge.skill_not_found", 404),
  SkillReadonly: fixed("bridge.skill_readonly", 403),
  SkillPendingElsewhere: fixed("bridge.skill_pending_elsewhere", 409),
  TooManyPending: fixed("bridge.too_many_pending", 429),
  QuotaExceeded: fixed("bridge.quota_exceeded", 429),
  InvalidInput: fixed("bridge.invalid_input", 422),
  Internal: fixed("bridge.internal", 500)
}

export const errorCode = (e: BridgeError): string => ErrorTable[e._tag].code
export const errorStatus = (e: BridgeError): number =>
  (ErrorTable[e._tag].status as (e: BridgeError) => number)(e)

const tags = new Set<string>(Object.keys(ErrorTable))
export const isBridgeError = (u: unknown): u is BridgeError =>
  typeof u === "object" && u !== null && "_tag" in u && tags.has((u as { _tag: string })._tag) && u instanceof Error

/** `bridge.<code>: <message>` — the text every surface shows for an error. */
export const errorText = (e: BridgeError): string => `${errorCode(e)}: ${e.message}`
