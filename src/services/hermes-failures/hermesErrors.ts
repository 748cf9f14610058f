/**
 * The one mapping of the Hermes adapter's errors (`hermes/client/failure.ts`) to the bridge's typed
 * errors, as the failure table of docs/REFERENCE.md says. The Hermes client speaks only Hermes's
 * terms; every service that calls it maps here, with the specific errors its operation may raise:
 * - no answer (refused, reset, DNS, timeout) → `bridge.agent_unavailable` (502);
 * - Hermes 401/403 or any 5xx → `bridge.agent_refused`, shown as 502 (`hermesStatus` keeps Hermes's
 *   status so `agents_list` can tell "unauthorized");
 * - any other 4xx → `bridge.agent_refused` carrying Hermes's status (a Hermes 429 stays 429);
 * - Hermes codes with a bridge equivalent → that error (table below), where the operation reports it
 *   (its raise list: `OPERATION_CODES` beside the operations, `hermes/client/operations.ts`);
 *   a run is "not found" only when Hermes's JSON envelope says `run_not_found`: a bare 404 is the
 *   answer of a build without the route, and stays a refusal carrying 404;
 * - a feature this Hermes build lacks (the bridge did not call) → `bridge.agent_refused` (502)
 *   naming the missing capability;
 * - an agent id no profile answers to → `bridge.unknown_agent`.
 */
import { unknownAgent } from "../../domain/agents.ts"
import {
  AgentRefused,
  AgentUnavailable,
  AgentUnkeyed,
  IdempotencyConflict,
  InvalidIdempotencyKey,
  NoPendingRequest,
  RunNotFound,
  RunNotRunning,
  type UnknownAgent
} from "../../domain/errors.ts"
import type { HermesCode, HermesFailure, HermesNoProfile } from "../../hermes/client/failure.ts"

/** What any call to Hermes may end in. */
export type HermesCallError = AgentUnavailable | AgentRefused | AgentUnkeyed

export type SpecificError = RunNotFound | RunNotRunning | NoPendingRequest | IdempotencyConflict | InvalidIdempotencyKey
export type SpecificTag = SpecificError["_tag"]

/** Hermes's error codes that have a bridge equivalent (every `HermesCode` has one). */
const SPECIFIC_CODES = {
  run_not_found: "RunNotFound",
  run_not_accepting_steer: "RunNotRunning",
  steer_not_accepted: "RunNotRunning",
  run_not_active: "RunNotRunning",
  clarify_not_pending: "NoPendingRequest",
  approval_not_active: "NoPendingRequest",
  approval_not_pending: "NoPendingRequest",
  idempotency_key_conflict: "IdempotencyConflict",
  invalid_idempotency_key: "InvalidIdempotencyKey"
} as const satisfies { readonly [C in HermesCode]: SpecificTag }

/** The bridge errors an operation reporting these Hermes codes may raise beyond the generic ones. */
export type RaisedBy<C extends HermesCode> = Extract<SpecificError, { _tag: (typeof SPECIFIC_CODES)[C] }>

const specificTag = (code: string | null): SpecificTag | undefined =>
  code !== null && Object.hasOwn(SPECIFIC_CODES, code) ? SPECIFIC_CODES[code as HermesCode] : undefined

const MESSAGES: { readonly [T in SpecificTag]: (agent: string, detail: string | null) => SpecificError } = {
  RunNotFound: (agent) => new RunNotFound({ message: `${agent} does not know this run` }),
  RunNotRunning: (agent, detail) => new RunNotRunning({ message: `${agent} does not accept this now: the run is not running${detail === null ? "" : ` (${detail})`}` }),
  NoPendingRequest: (agent) => new NoPendingRequest({ message: `${agent} has no such pending request for this run` }),
  IdempotencyConflict: (agent) => new IdempotencyConflict({ message: `${agent} already used this idempotency key for a different request` }),
  InvalidIdempotencyKey: (agent) => new InvalidIdempotencyKey({ message: `${agent} refused the idempotency key as invalid` })
}

/**
 * The bridge error for an adapter error. `codes` lists the Hermes codes this operation reports as
 * themselves (`OPERATION_CODES`); a specific code outside it falls back to the generic
 * `agent_refused` with Hermes's status.
 */
export function toBridgeError(failure: HermesNoProfile): UnknownAgent
export function toBridgeError<C extends HermesCode = never>(
  failure: HermesFailure,
  codes?: ReadonlyArray<C>
): HermesCallError | RaisedBy<C>
export function toBridgeError<C extends HermesCode = never>(
  failure: HermesFailure | HermesNoProfile,
  codes?: ReadonlyArray<C>
): HermesCallError | UnknownAgent | RaisedBy<C>
export function toBridgeError<C extends HermesCode>(
  failure: HermesFailure | HermesNoProfile,
  codes: ReadonlyArray<C> = []
): HermesCallError | UnknownAgent | RaisedBy<C> {
  const { agent } = failure
  switch (failure._tag) {
    case "HermesNoProfile":
      return unknownAgent(agent)
    case "HermesNoKey":
      return new AgentUnkeyed({ message: `the bridge holds no API key for ${agent}` })
    case "HermesTransport":
      return new AgentUnavailable({ message: `${agent} does not answer (${failure.detail})` })
    case "HermesTimeout":
      return new AgentUnavailable({ message: `${agent} did not answer within ${failure.afterMs} ms` })
    case "HermesBadAnswer":
      return new AgentRefused({ message: `${agent} sent an answer the bridge cannot read (${failure.detail})` })
    case "HermesLacks":
      return new AgentRefused({
        message: `${agent} cannot ${failure.action}: this Hermes build does not offer ${failure.feature} (its capabilities lack it)`
      })
    case "HermesStatus": {
      const tag = specificTag(failure.code)
      if (tag !== undefined && (codes as ReadonlyArray<string | null>).includes(failure.code)) {
        return MESSAGES[tag](agent, failure.detail) as RaisedBy<C>
      }
      const what = failure.code === null ? `${failure.status}` : `${failure.status} ${failure.code}`
      const noRoute = failure.status === 404 && failure.code === null ? ": this Hermes build has no such route" : ""
      const message = failure.status === 401 || failure.status === 403
        ? `${agent} refused the bridge's key (${what})`
        : `${agent} refused the request (${what})${failure.detail === null ? noRoute : `: ${failure.detail}`}`
      return new AgentRefused({ message, hermesStatus: failure.status })
    }
  }
}

/** `toBridgeError` for a pipe, where a call needs the adapter's failure first (`hermesStart.ts`); elsewhere `bridgeHermes`. */
export const hermesError = <C extends HermesCode = never>(codes: ReadonlyArray<C> = []) =>
  (failure: HermesFailure): HermesCallError | RaisedBy<C> => toBridgeError(failure, codes)
