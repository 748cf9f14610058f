/**
 * What a simulated Hermes looks like: its generation, profiles, keys and timing knobs. Every option
 * has a default, so `startSimulator({})` gives one newer-generation profile on a free loopback port.
 */
import { newApiKey } from "./wire.ts"

/**
 * `old`: the runs API of the Hermes releases on PyPI (0.19, 0.20): no `id:` lines, no replay, no
 * idempotency, no steer, 404 on reconnect, a second concurrent subscriber shares the first one's
 * queue, 401 code `invalid_api_key`, no `approval` object in the status, no `request_id` in approval
 * events.
 * `new`: `id: <seq>` frames, Last-Event-ID replay, several subscribers, durable-in-process
 * idempotency, `interrupted` after a restart, `version` in `/health`, 401 code `gateway_auth_failed`.
 */
export type SimGeneration = "old" | "new"

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
  /** Whether the build has clarification (`run_clarify`, `"clarify": true`). Default true. */
  readonly clarify?: boolean | undefined
  /** Whether the status shows a pending approval (`approval`). Default: newer builds only. */
  readonly statusShowsApproval?: boolean | undefined
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
  /** `/health` version. Default "0.20.4" on newer builds, "0.20.0" on older ones. */
  readonly version?: string | undefined
}

export interface ResolvedSimOptions {
  readonly port: number
  readonly host: string
  readonly profiles: ReadonlyArray<{ readonly name: string; readonly key: string }>
  readonly generation: SimGeneration
  readonly steer: boolean
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
  return {
    port: o.port ?? 0,
    host: o.host ?? "127.0.0.1",
    profiles,
    generation,
    steer: o.steer ?? generation === "new",
    statusShowsApproval: o.statusShowsApproval ?? generation === "new",
    clarify: o.clarify ?? true,
    clarifyResponsesVariant: o.clarifyResponsesVariant ?? false,
    multiplex: o.multiplex ?? true,
    maxConcurrentRuns: o.maxConcurrentRuns ?? 10,
    approvalTimeoutMs: o.approvalTimeoutMs ?? 300_000,
    clarifyTimeoutMs: o.clarifyTimeoutMs ?? 300_000,
    keepaliveMs: o.keepaliveMs ?? 15_000,
    speed,
    registrationDelayMs: o.registrationDelayMs ?? 0,
    deadSubscriberNoticedLate: o.deadSubscriberNoticedLate ?? generation === "old",
    slowSubscriberLimit: o.slowSubscriberLimit ?? 4096,
    terminalRetentionMs: o.terminalRetentionMs ?? 3_600_000,
    maxTerminalRuns: o.maxTerminalRuns ?? 500,
    eventBufferTtlMs: o.eventBufferTtlMs ?? 300_000,
    restartDownMs: o.restartDownMs ?? 50,
    startReturnsStatus: o.startReturnsStatus ?? false,
    version: o.version ?? (generation === "new" ? "0.20.4" : "0.20.0")
  }
}
