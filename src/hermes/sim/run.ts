/**
 * One simulated run: the status Hermes reports for it, the frames it has published, its live
 * subscribers, and the signals its executor waits on (stop, approval answer, clarification answer).
 * Mutated only from Effect code in the simulator; JavaScript's single thread keeps it consistent.
 */
import { Deferred, Effect, SubscriptionRef } from "effect"
import { unixSeconds } from "./wire.ts"

export type SimRunStatus =
  | "queued" | "running" | "waiting_for_approval" | "waiting_for_clarification" | "stopping"
  | "completed" | "failed" | "cancelled" | "interrupted"

const TERMINAL: ReadonlySet<SimRunStatus> = new Set(["completed", "failed", "cancelled", "interrupted"])
export const isTerminalStatus = (s: SimRunStatus): boolean => TERMINAL.has(s)
export const TERMINAL_EVENTS: ReadonlySet<string> = new Set(["run.completed", "run.failed", "run.cancelled", "run.interrupted"])

export const RESTART_ERROR = "The gateway restarted before this run settled."

export interface Frame {
  readonly seq: number
  /** The ASCII-escaped JSON payload. */
  readonly json: string
  readonly terminal: boolean
}

export interface Subscriber {
  /** Cuts the connection at once (a dropped or too-slow subscriber). */
  readonly destroy: () => void
  /** Live frames published since it came that it has not taken yet. */
  readonly backlog: () => number
  /**
   * Its connection died and Hermes has not noticed yet (older builds notice at the next write):
   * still registered, still first in line for the run's queue.
   */
  readonly isDead: () => boolean
  /** A write to the dead connection: it fails, the handler leaves and drops the run's queue. */
  readonly writeFails: () => void
}

export interface PendingApproval {
  readonly request_id: string
  readonly command: string
  readonly description: string
  readonly pattern_key: string
  readonly pattern_keys: ReadonlyArray<string>
  readonly allow_permanent: boolean
  readonly allow_session: boolean
  readonly choices: ReadonlyArray<string>
  readonly answer: Deferred.Deferred<string>
}

export interface PendingClarification {
  readonly clarify_id: string
  readonly question: string
  readonly choices: ReadonlyArray<string>
  readonly multi_select: boolean
  readonly answer: Deferred.Deferred<string | null>
}

export interface Usage {
  readonly input_tokens: number
  readonly output_tokens: number
  readonly total_tokens: number
}

export interface SimRun {
  readonly id: string
  readonly profile: string
  readonly input: string
  readonly sessionId: string
  readonly model: string
  readonly createdAt: number
  /** The events route sees the run only from this time on (Hermes registers it asynchronously). */
  readonly visibleAt: number
  status: SimRunStatus
  updatedAt: number
  endedAt: number | null
  lastEvent: string | null
  output: string | null
  usage: Usage | null
  error: string | null
  pendingSteer: string | null
  approval: PendingApproval | null
  clarification: PendingClarification | null
  /** Steers accepted while running, not yet worked into the answer. */
  steers: Array<string>
  /** The answer is written; a steer now comes back as `pending_steer`. */
  answered: boolean
  /** Newer builds: every frame, for replay. Older builds: the single consumer's buffer. */
  frames: Array<Frame>
  nextSeq: number
  /** Bumped on every publish so subscribers wake up (its `changes` never miss an update). */
  readonly version: SubscriptionRef.SubscriptionRef<number>
  readonly subscribers: Set<Subscriber>
  /**
   * Older builds: concurrent subscribers read one queue, so each frame goes to one of them; this
   * says which, decided when a subscriber first sees the frame (in turn, as waiters on one queue).
   */
  readonly queueOwner: Map<number, Subscriber>
  /** Older builds: a consumer attached at least once. */
  consumed: boolean
  /** Older builds: the consumer left, so the buffer is gone and the events route answers 404. */
  bufferDropped: boolean
  /** After a restart the in-memory event buffers are gone even where the status survived. */
  eventsLost: boolean
  /** `[sim:drop=N]`: the connection that carries frame N-1 is cut right after it (once per run). */
  dropAt: number | null
  dropped: boolean
  readonly stop: Deferred.Deferred<void>
}

export interface NewRunFields {
  readonly id: string
  readonly profile: string
  readonly input: string
  readonly sessionId: string
  readonly model: string
  readonly now: number
  readonly visibleAt: number
}

export const makeRun = (f: NewRunFields): Effect.Effect<SimRun> =>
  Effect.gen(function* () {
    return {
      id: f.id, profile: f.profile, input: f.input, sessionId: f.sessionId, model: f.model,
      createdAt: f.now, visibleAt: f.visibleAt, status: "queued", updatedAt: f.now, endedAt: null,
      lastEvent: null, output: null, usage: null, error: null, pendingSteer: null, approval: null,
      clarification: null, steers: [], answered: false, frames: [], nextSeq: 0, queueOwner: new Map(),
      version: yield* SubscriptionRef.make(0), subscribers: new Set(), consumed: false, bufferDropped: false,
      eventsLost: false, dropAt: null, dropped: false, stop: yield* Deferred.make<void>()
    }
  })

/**
 * `GET /v1/runs/{id}`'s body. Older builds leave `last_event` out until there is one, and never show
 * the pending approval (only the event stream carries it).
 */
export const statusBody = (run: SimRun, isNew: boolean, showsApproval = isNew): Record<string, unknown> => {
  const body: Record<string, unknown> = {
    object: "hermes.run",
    run_id: run.id,
    status: run.status,
    created_at: unixSeconds(run.createdAt),
    updated_at: unixSeconds(run.updatedAt),
    session_id: run.sessionId,
    model: run.model,
    ...(isNew || run.lastEvent !== null ? { last_event: run.lastEvent } : {})
  }
  if (run.output !== null) body.output = run.output
  if (run.usage !== null) body.usage = run.usage
  if (run.error !== null) body.error = run.error
  if (run.pendingSteer !== null) body.pending_steer = run.pendingSteer
  if (run.approval !== null && showsApproval) {
    const { answer: _answer, ...approval } = run.approval
    body.approval = approval
  }
  if (run.clarification !== null) {
    const { answer: _answer, ...clarification } = run.clarification
    body.clarification = clarification
  }
  return body
}
