/**
 * The bridge's grip on Hermes: one service over every configured profile's API server
 * (docs/SIMULATOR.md). It fails with the adapter's own errors (`failure.ts`: status, Hermes's code
 * and message, route and agent), never with the bridge's; the services that call it map those to
 * `bridge.*` in one place (`services/hermes-failures/hermesErrors.ts`, through `bridgeHermes.ts`), with the specific errors their operation
 * may raise.
 *
 * This file is the interface; `HermesClientLive.ts` implements it over @effect/platform's HttpClient.
 */
import type { Duration, Option, Redacted, Stream } from "effect"
import { Context, Effect } from "effect"
import type { ApprovalChoice } from "../../domain/approvals.ts"
import type { HermesEvent } from "../../domain/runs/hermesEvents.ts"
import type { RunStatus } from "../../domain/runs/view.ts"
import { type HermesFailure, HermesNoProfile } from "./failure.ts"

/** One configured Hermes profile as the bridge addresses it. */
export interface HermesProfile {
  /** "default" or the profile name. */
  readonly name: string
  /** The public agent id: "hermes" or "hermes/<profile>". */
  readonly agent: string
  /** The id shown in `agents_list`: "hermes" or "hermes__<profile>". */
  readonly agentId: string
  /** Base URL of this profile's API server (already `<url>/p/<profile>` when multiplexed). */
  readonly baseUrl: string
  /** The key the bridge presents; none means `keyed: false` and `HermesNoKey` on use. */
  readonly key: Option.Option<Redacted.Redacted<string>>
}

/** The profile called `name`, with the ids the bridge gives it: `hermes` for "default", else `hermes/<name>` and `hermes__<name>`. */
export const namedProfile = (name: string, baseUrl: string, key: Option.Option<Redacted.Redacted<string>>): HermesProfile => ({
  name,
  agent: name === "default" ? "hermes" : `hermes/${name}`,
  agentId: name === "default" ? "hermes" : `hermes__${name}`,
  baseUrl,
  key
})

/** The profile among `profiles` that the agent id names (`HermesClientShape.profile`, for every implementation). */
export const findProfile = (profiles: ReadonlyArray<HermesProfile>, agent: string): Effect.Effect<HermesProfile, HermesNoProfile> => {
  const found = profiles.find((p) => p.agent === agent)
  return found === undefined ? Effect.fail(new HermesNoProfile({ agent })) : Effect.succeed(found)
}

/** What a Hermes build can do, from `GET /v1/capabilities`; a missing flag is false. */
export interface HermesFeatures {
  readonly runSubmission: boolean
  readonly runStatus: boolean
  readonly runEventsSse: boolean
  readonly runStop: boolean
  readonly runApprovalResponse: boolean
  readonly runSteer: boolean
  readonly runClarify: boolean
  /** The clarify body shape: `{clarify_id, response}` or the fork's `{clarify_id, responses: [...]}`. */
  readonly clarifyBody: "response" | "responses"
  readonly idempotency: { readonly supported: boolean; readonly durable: boolean; readonly retentionSeconds: number }
  readonly sessionKeyHeader: string | null
  /**
   * Whether the profile's event streams number their frames (`id:`), which is what lets a
   * reconnect resume with `Last-Event-ID` (newer builds replay; 0.19/0.20 do not). Capabilities do
   * not advertise it, so it is what this client saw on the last stream it read of the profile; null
   * until it read one (and always in a process that never subscribes: the CLI).
   */
  readonly eventReplay: boolean | null
}

export interface HermesHealth {
  readonly status: string
  /** `version` from `/health` when present (unvalidated; the capabilities view validates it). */
  readonly version: string | null
}

export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max" | "ultra"

export interface StartRunRequest {
  readonly input: string
  readonly instructions?: string | undefined
  /** Already prefixed with the client name (`<client>:<key>`). */
  readonly sessionKey?: string | undefined
  /** Already prefixed; sent only where Hermes supports idempotency (digest form above 255 chars). */
  readonly idempotencyKey?: string | undefined
  readonly reasoningEffort?: ReasoningEffort | undefined
}

export interface StartRunResult {
  readonly hermesRunId: string
  readonly replayed: boolean
}

/** Hermes's run statuses are the bridge's (`RunStatus`, one Schema in `domain/runs/view.ts`). */
export type HermesRunStatusName = RunStatus

export interface HermesUsage {
  readonly input_tokens?: number
  readonly output_tokens?: number
  readonly total_tokens?: number
}

export interface HermesRunStatus {
  readonly runId: string
  readonly status: HermesRunStatusName
  readonly output: string | null
  readonly usage: HermesUsage | null
  readonly error: string | null
  /** The approval Hermes is waiting on, when the status says so (used by the polling fallback). */
  readonly approval: HermesApprovalRequest | null
  /** The clarification Hermes is waiting on, when the status says so (clarify builds). */
  readonly clarification: HermesClarifyRequest | null
  /** A steer that arrived after the final answer (Hermes's `pending_steer`). */
  readonly pendingSteer?: string | null
}

export interface HermesApprovalRequest {
  readonly request_id: string
  readonly command: string
  readonly description: string
  readonly choices: ReadonlyArray<string>
}

export interface HermesClarifyRequest {
  readonly clarify_id: string
  readonly question: string
  readonly choices: ReadonlyArray<string> | null
  readonly multi_select: boolean
}

export type { HermesEvent } from "../../domain/runs/hermesEvents.ts"

export interface FollowOptions {
  /** Resume after this frame id (newer builds), e.g. after a daemon restart. */
  readonly lastEventId?: number | undefined
  /**
   * The `message.delta` text the caller already holds from earlier follows of this run (e.g. before
   * a daemon restart), so that a completion synthesised from status adds only what is missing.
   */
  readonly receivedText?: string | undefined
  /** How often to poll status when the stream cannot be (re)opened. Default 1 s. */
  readonly pollInterval?: Duration.DurationInput
  /**
   * Give up (failing with the last error) after Hermes has not answered for this long. Default:
   * never, since only Hermes can tell how the run ended; a restarted Hermes answers 404 and the
   * follow ends with `run.interrupted`.
   */
  readonly giveUpAfter?: Duration.DurationInput
  /**
   * Runs each time the follow opens the run's event stream again after a drop (not on the first
   * open): on a build that does not number its frames, the new stream may share a dead
   * subscriber's queue and never carry the run's end (services/runs/quietWatch.ts).
   */
  readonly onReattach?: Effect.Effect<void>
}

/**
 * Every method fails with a `HermesFailure` (a control route's refusal is a `HermesStatus` carrying
 * Hermes's code, e.g. `run_not_found`, `approval_not_pending`), except `profile`.
 */
export interface HermesClientShape {
  readonly profiles: ReadonlyArray<HermesProfile>
  /** Resolves `hermes` / `hermes/<profile>`; anything else is `HermesNoProfile`. */
  readonly profile: (agent: string) => Effect.Effect<HermesProfile, HermesNoProfile>
  /** Health needs no key, so it never fails with `HermesNoKey`. */
  readonly health: (p: HermesProfile) => Effect.Effect<HermesHealth, HermesFailure>
  readonly models: (p: HermesProfile) => Effect.Effect<ReadonlyArray<string>, HermesFailure>
  readonly features: (p: HermesProfile) => Effect.Effect<HermesFeatures, HermesFailure>
  /**
   * Starts a run. Hermes's `idempotency_key_conflict` / `invalid_idempotency_key` come back as its
   * `HermesStatus` (the ledger normally answers those before Hermes is asked).
   */
  readonly start: (p: HermesProfile, req: StartRunRequest) => Effect.Effect<StartRunResult, HermesFailure>
  readonly status: (p: HermesProfile, hermesRunId: string) => Effect.Effect<HermesRunStatus, HermesFailure>
  /** One SSE connection to the run's events (no reconnect). */
  readonly events: (p: HermesProfile, hermesRunId: string, lastEventId?: number) => Stream.Stream<HermesEvent, HermesFailure>
  /**
   * The run's events until it ends, across dropped connections: reconnects with backoff, resumes with
   * Last-Event-ID where frames are numbered, else falls back to polling status and synthesises the
   * terminal event (`run.completed` with the full output, `run.failed`, `run.cancelled`,
   * `run.interrupted`) and pending approval/clarification requests from it. A run Hermes no longer
   * knows ends with a synthesised `run.interrupted` whose `error` says so. Ends after a terminal event.
   */
  readonly follow: (p: HermesProfile, hermesRunId: string, options?: FollowOptions) => Stream.Stream<HermesEvent, HermesFailure>
  /**
   * `follow` as an effect: each event is handed to `emit` in order, and the follow waits for it
   * (back-pressure); it returns after the terminal event. The daemon's follower reads this way, so
   * a parked run holds no stream stages, and no fiber or queue of the stream's own, beside its follow.
   */
  readonly followInto: (
    p: HermesProfile,
    hermesRunId: string,
    options: FollowOptions | undefined,
    emit: (e: HermesEvent) => Effect.Effect<unknown>
  ) => Effect.Effect<void, HermesFailure>
  readonly approval: (
    p: HermesProfile,
    hermesRunId: string,
    body: { readonly choice: ApprovalChoice; readonly requestId?: string }
  ) => Effect.Effect<void, HermesFailure>
  /** A build whose capabilities lack `run_steer` is not asked: `HermesLacks`. */
  readonly steer: (p: HermesProfile, hermesRunId: string, input: string) => Effect.Effect<void, HermesFailure>
  /** No live task for the run (404, or newer builds' 409 `run_not_active`) is a 404 `run_not_found`. */
  readonly stop: (p: HermesProfile, hermesRunId: string) => Effect.Effect<void, HermesFailure>
  /** A build without clarifications answers as Hermes would for no pending one: 409 `clarify_not_pending`. */
  readonly clarify: (
    p: HermesProfile,
    hermesRunId: string,
    body: { readonly clarifyId: string; readonly response: string | ReadonlyArray<string> | null }
  ) => Effect.Effect<void, HermesFailure>
}

export class HermesClient extends Context.Tag("agent-bridge/HermesClient")<HermesClient, HermesClientShape>() {}
