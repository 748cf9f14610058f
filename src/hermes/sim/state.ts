/**
 * The simulated Hermes process's memory: runs, idempotency records, injected faults, the drain
 * flag and a log of the requests it received (for tests that assert on headers). A restart with
 * lost runs is a `forgetRuns`; a newer build's restart keeps statuses as `interrupted`.
 *
 * Bounded, because as the daemon's embedded default it runs for days: `sweep` (at most once a
 * second, from lookups, starts and each run's end) forgets terminal runs past `terminalRetentionMs`
 * (3600 s, as Hermes) or beyond the newest `maxTerminalRuns`, drops the event buffer of an ended run
 * nobody is reading `eventBufferTtlMs` (300 s, as Hermes) after its end, and forgets idempotency
 * records past their day or beyond the newest `MAX_IDEMPOTENCY_RECORDS`. A run someone is still
 * reading is never touched.
 */
import { Effect, SubscriptionRef } from "effect"
import type { ResolvedSimOptions } from "./options.ts"
import { isTerminalStatus, RESTART_ERROR, type SimRun, TERMINAL_EVENTS } from "./run.ts"
import { asciiJson, unixSeconds } from "./wire.ts"

/**
 * A failure the simulator answers instead of doing its job (for the client's failure-mapping tests).
 * `route` is a route's name in the table (`SimRoute`, `handlers.ts`); the state keeps it as a string.
 */
export interface SimFault<Route extends string = string> {
  /** Which route; every route when omitted. */
  readonly route?: Route | undefined
  /** Which profile; every profile when omitted. */
  readonly profile?: string | undefined
  /** The HTTP status to answer; omitted with `delayMs` means "answer normally, but late". */
  readonly status?: number | undefined
  /** The error envelope's `code` (default: derived from the status). */
  readonly code?: string | undefined
  readonly message?: string | undefined
  readonly retryAfterSeconds?: number | undefined
  /** An empty body instead of the error envelope. */
  readonly bare?: boolean | undefined
  /** Wait this long before answering (longer than the client's timeout: a timeout). */
  readonly delayMs?: number | undefined
  /** Cut the connection without answering. */
  readonly destroy?: boolean | undefined
  /** How many matching requests it applies to (default 1). */
  readonly times?: number | undefined
}

export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly profile: string | null
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string>>
  /** The parsed JSON body of a POST that got as far as being read. */
  body: unknown
  readonly at: number
}

interface IdempotencyRecord {
  readonly fingerprint: string
  readonly runId: string
  readonly at: number
}

const IDEMPOTENCY_RETENTION_MS = 86_400_000
const REQUEST_LOG_LIMIT = 2000
/** Idempotency records are small (a key, a digest, an id); this many is a few MB at most. */
export const MAX_IDEMPOTENCY_RECORDS = 10_000
/** How often a sweep may run (each one walks every run). */
const SWEEP_INTERVAL_MS = 1000

export class SimState {
  readonly runs = new Map<string, SimRun>()
  private readonly idempotency = new Map<string, IdempotencyRecord>()
  private faults: Array<{ fault: SimFault; remaining: number }> = []
  readonly requests: Array<RecordedRequest> = []
  draining = false
  /** The most runs ever in flight at once (a test checks the cap was never passed). */
  peakLiveRuns = 0
  private lastSweep = Number.NEGATIVE_INFINITY

  constructor(readonly options: ResolvedSimOptions) {}

  get isNew(): boolean {
    return this.options.protocol === "new"
  }

  /** A run of this profile, or undefined (unknown, another profile's, or past terminal retention). */
  find(profile: string, runId: string, now = Date.now()): SimRun | undefined {
    this.sweepSometimes(now)
    const run = this.runs.get(runId)
    if (run === undefined || run.profile !== profile) return undefined
    if (run.endedAt !== null && now - run.endedAt > this.options.terminalRetentionMs) {
      this.runs.delete(runId)
      return undefined
    }
    return run
  }

  liveRuns(): number {
    let n = 0
    for (const run of this.runs.values()) if (!isTerminalStatus(run.status)) n++
    return n
  }

  /** Records a newly admitted run in `peakLiveRuns`. */
  notePeak(): void {
    this.peakLiveRuns = Math.max(this.peakLiveRuns, this.liveRuns())
  }

  addFault(fault: SimFault): void {
    this.faults.push({ fault, remaining: fault.times ?? 1 })
  }

  clearFaults(): void {
    this.faults = []
  }

  /** The first fault matching this request, consumed once. */
  takeFault(route: string, profile: string | null): SimFault | undefined {
    const hit = this.faults.find((f) =>
      f.remaining > 0 && (f.fault.route === undefined || f.fault.route === route) &&
      (f.fault.profile === undefined || f.fault.profile === profile)
    )
    if (hit === undefined) return undefined
    hit.remaining--
    this.faults = this.faults.filter((f) => f.remaining > 0)
    return hit.fault
  }

  record(request: RecordedRequest): void {
    this.requests.push(request)
    if (this.requests.length > REQUEST_LOG_LIMIT) this.requests.splice(0, this.requests.length - REQUEST_LOG_LIMIT)
  }

  /** Newer builds: the run an idempotency key already started, or a conflict. */
  idempotencyLookup(profile: string, key: string, fingerprint: string, now = Date.now()):
    | { readonly _tag: "New" } | { readonly _tag: "Replay"; readonly runId: string } | { readonly _tag: "Conflict" } {
    const rec = this.idempotency.get(`${profile}\u0000${key}`)
    if (rec === undefined || now - rec.at > IDEMPOTENCY_RETENTION_MS) return { _tag: "New" }
    return rec.fingerprint === fingerprint ? { _tag: "Replay", runId: rec.runId } : { _tag: "Conflict" }
  }

  idempotencyStore(profile: string, key: string, fingerprint: string, runId: string, now = Date.now()): void {
    this.idempotency.set(`${profile}\u0000${key}`, { fingerprint, runId, at: now })
    this.sweepSometimes(now)
  }

  /** How many idempotency records are held (for the bound's tests). */
  get idempotencyRecords(): number {
    return this.idempotency.size
  }

  private sweepSometimes(now: number): void {
    if (now - this.lastSweep >= SWEEP_INTERVAL_MS || now < this.lastSweep) this.sweep(now)
  }

  /** Forgets what Hermes would have forgotten by `now`, and what is past the count bound. */
  sweep(now = Date.now()): void {
    this.lastSweep = now
    const { terminalRetentionMs, maxTerminalRuns, eventBufferTtlMs } = this.options
    const ended: Array<SimRun> = []
    for (const run of this.runs.values()) {
      if (run.endedAt === null || run.subscribers.size > 0) continue
      const age = now - run.endedAt
      if (age > terminalRetentionMs) {
        this.runs.delete(run.id)
        continue
      }
      ended.push(run)
      // The buffer nobody read (or, on newer builds, nobody is replaying) expires; the status stays.
      if (age > eventBufferTtlMs && run.frames.length > 0) {
        run.frames = []
        if (this.isNew) run.eventsLost = true
        else run.bufferDropped = true
      }
    }
    if (ended.length > maxTerminalRuns) {
      ended.sort((a, b) => a.endedAt! - b.endedAt!)
      for (const run of ended.slice(0, ended.length - maxTerminalRuns)) this.runs.delete(run.id)
    }
    // A day, as Hermes; past the count bound the oldest first (a Map iterates in insertion order).
    let excess = this.idempotency.size - MAX_IDEMPOTENCY_RECORDS
    for (const [key, rec] of this.idempotency) {
      if (excess > 0 || now - rec.at > IDEMPOTENCY_RETENTION_MS) {
        this.idempotency.delete(key)
        excess--
      }
    }
  }

  /** Appends one event to the run (where anyone can still read it) and wakes its subscribers. */
  publish(run: SimRun, event: string, fields: Readonly<Record<string, unknown>> = {}): Effect.Effect<void> {
    return Effect.suspend(() => {
      const now = Date.now()
      run.lastEvent = event
      run.updatedAt = now
      const seq = run.nextSeq++
      // An older build's buffer is gone once its consumer left: later events reach nobody.
      if (!this.isNew && run.bufferDropped) return Effect.void
      // An older build's dead subscriber has waited on the queue longest, so it takes this event;
      // the write fails, its handler drops the run's queue, and the event reaches nobody.
      const dead = [...run.subscribers].find((s) => s.isDead())
      if (dead !== undefined) {
        dead.writeFails()
        return Effect.void
      }
      // Newer builds repeat the frame's number inside its data (`seq`), as the 0.22 fork does.
      const payload = { event, run_id: run.id, timestamp: unixSeconds(now), ...(this.isNew ? { seq } : {}), ...fields }
      const terminal = TERMINAL_EVENTS.has(event)
      run.frames.push({ seq, json: asciiJson(payload), terminal })
      // A run's end is when the count bound can first be passed.
      if (terminal) this.sweepSometimes(now)
      // Newer builds cut a subscriber whose queue is full, as Hermes does with a slow reader.
      if (this.isNew) {
        for (const s of [...run.subscribers]) if (s.backlog() > this.options.slowSubscriberLimit) s.destroy()
      }
      return SubscriptionRef.update(run.version, (n) => n + 1)
    })
  }

  /**
   * What a restart leaves behind. Older builds, or `loseRuns`: nothing (every run is 404, the
   * idempotency records are gone too). Newer builds: statuses survive (with `restartKeeps: keyed`
   * only those of runs started with a key), unsettled runs become `interrupted`; the in-memory
   * event buffers are gone either way.
   */
  afterRestart(loseRuns: boolean): void {
    const now = Date.now()
    for (const run of this.runs.values()) {
      for (const s of run.subscribers) s.destroy()
      run.subscribers.clear()
      run.frames = []
      run.eventsLost = true
      if (!isTerminalStatus(run.status)) {
        run.status = "interrupted"
        run.error = RESTART_ERROR
        run.approval = null
        run.clarification = null
        run.endedAt = now
        run.updatedAt = now
      }
    }
    if (loseRuns || !this.isNew) {
      this.runs.clear()
      this.idempotency.clear()
    } else if (this.options.restartKeeps === "keyed") {
      // Only a keyed run's status was on disk.
      const keyed = new Set([...this.idempotency.values()].map((r) => r.runId))
      for (const id of [...this.runs.keys()]) if (!keyed.has(id)) this.runs.delete(id)
    }
  }
}
