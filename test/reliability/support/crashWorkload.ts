/**
 * What one client does in the crash test: starts its runs with idempotency keys, then, while the
 * daemon is being killed and restarted, follows its runs' events incrementally, replays its starts
 * (which must return the original run ids), reads statuses and short waits; once the kills are
 * over it answers its clarifications and waits for every run to end. Everything it sees is checked
 * as it goes; problems are collected, never thrown, so one client's finding does not hide another's.
 */
import { type ResilientMcp } from "./mcpClient.ts"
import { TERMINAL_STATUSES } from "./runChecks.ts"
import { EVENTS_PAGE_MAX } from "../../../src/domain/limits.ts"
import { sleep } from "../../support/poll.ts"

/**
 * `clarify`: asks a question and waits for the answer (live until the kills are over); `stream`:
 * streams a few events over 40-80 s; `steered`: barely moves by itself, and is steered until it holds more than
 * 500 events (each steer is one `run.steered` event), then stopped.
 */
export type RunKind = "clarify" | "stream" | "steered"

/** Steers per steered run: enough to push it past the 500-event cap. */
export const STEERS = 530

export interface TrackedRun {
  readonly client: string
  readonly key: string
  readonly input: string
  readonly kind: RunKind
  runId: string | null
  /** Every event seen while following, by seq (its type). */
  readonly seen: Map<number, string>
  lastSeen: number
  /** Following found seqs missing after a page: allowed only where the 500-event cap dropped them. */
  capGaps: number
  /** When a steer first found the run still queued (null: never). */
  queuedSince?: number
}

export interface ClientCounts {
  startsRetried: number
  replays: number
  follows: number
  statuses: number
  waits: number
  answers: number
  steers: number
  /** Steers answered `bridge.run_not_running` because the run was still queued (then retried once it ran). */
  queuedSteers: number
}

export interface Workload {
  readonly runs: ReadonlyArray<TrackedRun>
  readonly counts: ClientCounts
  readonly problems: Array<string>
}


/** How long a `stream` run streams: `minS` plus up to `spreadS` seconds (the crash test: 40-80 s). */
export interface StreamLength {
  readonly minS: number
  readonly spreadS: number
}
const CRASH_STREAMS: StreamLength = { minS: 40, spreadS: 40 }

/** A run's input: the kind decides the simulated script; the text is unique per run. */
export const runInput = (client: number, index: number, kind: RunKind, streams: StreamLength = CRASH_STREAMS): string => {
  const tag = `crash c${client} r${index}`
  if (kind === "clarify") return `${tag} [sim:clarify]`
  if (kind === "steered") return `${tag} [sim:slow=900s,events=4]`
  const seconds = streams.minS + ((client * 7 + index * 13) % (streams.spreadS + 1))
  const events = 8 + ((client * 11 + index * 5) % 17)
  return `${tag} [sim:slow=${seconds}s,events=${events}]`
}

export const makeWorkload = (client: number, name: string, kinds: ReadonlyArray<RunKind>, streams?: StreamLength): Workload => ({
  runs: kinds.map((kind, i) => ({
    client: name, key: `job-${i}`, input: runInput(client, i, kind, streams), kind, runId: null, seen: new Map(), lastSeen: 0, capGaps: 0
  })),
  counts: { startsRetried: 0, replays: 0, follows: 0, statuses: 0, waits: 0, answers: 0, steers: 0, queuedSteers: 0 },
  problems: []
})

const startArgs = (r: TrackedRun) => ({ agent: "hermes", input: r.input, idempotency_key: r.key })

/** Starts every run (retrying through restarts); a start answered only after a retry is counted. */
export const startAll = async (mcp: ResilientMcp, w: Workload, deadline: number) => {
  for (const r of w.runs) {
    const out = await mcp.call("agent_run", startArgs(r), { deadline })
    if (!out.ok) {
      w.problems.push(`${r.client}/${r.key}: start refused: ${out.text}`)
      continue
    }
    r.runId = out.value.run_id as string
    if (out.attempts > 1) w.counts.startsRetried++
  }
}

/** Reads the events after what this client saw last and checks they continue it exactly. */
const follow = async (mcp: ResilientMcp, w: Workload, r: TrackedRun, deadline: number) => {
  const out = await mcp.call("agent_run_events", { run_id: r.runId, since_seq: r.lastSeen, limit: EVENTS_PAGE_MAX }, { deadline })
  w.counts.follows++
  if (!out.ok) return void w.problems.push(`${r.client}/${r.key}: events refused: ${out.text}`)
  const events = out.value.events as ReadonlyArray<{ seq: number; type: string }>
  let expected = r.lastSeen + 1
  for (const [i, e] of events.entries()) {
    if (e.seq !== expected) {
      // Only a page's first event may skip ahead: the cap dropped events this client had not read
      // yet (only a steered run holds more than 500). Inside a page, seqs are contiguous.
      if (i === 0 && e.seq > expected && r.kind === "steered") r.capGaps++
      else w.problems.push(`${r.client}/${r.key}: after seq ${expected - 1} came seq ${e.seq}`)
    }
    if (r.seen.has(e.seq)) w.problems.push(`${r.client}/${r.key}: seq ${e.seq} delivered twice`)
    r.seen.set(e.seq, e.type)
    expected = e.seq + 1
  }
  if (events.length > 0) r.lastSeen = out.value.last_seq as number
}

/** A start repeated with the same key and request must answer the original run. */
const replay = async (mcp: ResilientMcp, w: Workload, r: TrackedRun, deadline: number) => {
  const out = await mcp.call("agent_run", startArgs(r), { deadline })
  w.counts.replays++
  if (!out.ok) w.problems.push(`${r.client}/${r.key}: replayed start refused: ${out.text}`)
  else if (out.value.run_id !== r.runId) w.problems.push(`${r.client}/${r.key}: replayed start answered ${out.value.run_id}, not ${r.runId}`)
}

/** Random reads and replays until `stop()` says the kills are over. */
export const churn = async (mcp: ResilientMcp, w: Workload, stop: () => boolean, deadline: number) => {
  const started = w.runs.filter((r) => r.runId !== null)
  while (!stop() && started.length > 0 && Date.now() < deadline) {
    const r = started[Math.floor(Math.random() * started.length)]!
    const dice = Math.random()
    if (dice < 0.4) await follow(mcp, w, r, deadline)
    else if (dice < 0.65) await replay(mcp, w, r, deadline)
    else if (dice < 0.85) {
      const out = await mcp.call("agent_run_status", { run_id: r.runId }, { deadline })
      w.counts.statuses++
      if (!out.ok) w.problems.push(`${r.client}/${r.key}: status refused: ${out.text}`)
    } else {
      const out = await mcp.call("agent_run_wait", { run_id: r.runId, timeout_s: 1 }, { deadline, timeoutMs: 21_000 })
      w.counts.waits++
      if (!out.ok) w.problems.push(`${r.client}/${r.key}: wait refused: ${out.text}`)
    }
    await sleep(300 + Math.random() * 600)
  }
}

/**
 * Steers the client's steered runs STEERS times each, several steers at a time (a steer lost to a
 * kill may land twice, which only adds an event), then stops them. Runs through the kills.
 */
export const steerAll = async (mcp: ResilientMcp, w: Workload, deadline: number) => {
  const CONCURRENT = 8
  for (const r of w.runs) {
    if (r.kind !== "steered" || r.runId === null) continue
    let next = 0
    const steerer = async () => {
      for (let i = next++; i < STEERS && Date.now() < deadline; i = next++) {
        for (;;) {
          const out = await mcp.call("agent_run_steer", { run_id: r.runId, input: `steer ${i}` }, { deadline })
          w.counts.steers++
          if (out.ok) break
          // A start may be answered `queued` (a slot's reservation lost a race, or another client's
          // run was queued first) and admitted a moment later; steering needs `running` (the
          // contract), so a client steers once it runs. A run queued for long is a problem.
          if (out.code === "bridge.run_not_running" && out.text.includes("is queued") && (await stillQueued(mcp, w, r, deadline))) continue
          w.problems.push(`${r.client}/${r.key}: steer ${i} refused: ${out.text}`)
          break
        }
      }
    }
    await Promise.all(Array.from({ length: CONCURRENT }, steerer))
    const stopped = await mcp.call("agent_run_stop", { run_id: r.runId }, { deadline })
    if (!stopped.ok) w.problems.push(`${r.client}/${r.key}: stop refused: ${stopped.text}`)
  }
}

/** A queued run may wait this long for its admission before the workload calls it a problem. */
const QUEUED_AT_MOST_MS = 60_000

/**
 * Waits (polling its status) while `r` is queued: true once it left the queue, false (with a
 * problem) when it stayed queued past QUEUED_AT_MOST_MS of its first sight or the deadline.
 */
const stillQueued = async (mcp: ResilientMcp, w: Workload, r: TrackedRun, deadline: number): Promise<boolean> => {
  r.queuedSince ??= Date.now()
  w.counts.queuedSteers++
  while (Date.now() < Math.min(deadline, r.queuedSince + QUEUED_AT_MOST_MS)) {
    await sleep(250)
    const out = await mcp.call("agent_run_status", { run_id: r.runId }, { deadline })
    if (out.ok && out.value.status !== "queued") return true
  }
  w.problems.push(`${r.client}/${r.key}: still queued ${Date.now() - r.queuedSince} ms after a steer found it queued`)
  return false
}

/** Answers clarifications as they come and waits until every run has ended. */
export const finish = async (mcp: ResilientMcp, w: Workload, deadline: number) => {
  for (const r of w.runs) {
    if (r.runId === null) continue
    for (;;) {
      if (Date.now() > deadline) {
        w.problems.push(`${r.client}/${r.key}: still not ended at the deadline`)
        break
      }
      const out = await mcp.call("agent_run_wait", { run_id: r.runId, timeout_s: 20 }, { deadline, timeoutMs: 40_000 })
      w.counts.waits++
      if (!out.ok) {
        w.problems.push(`${r.client}/${r.key}: wait refused: ${out.text}`)
        break
      }
      const view = out.value
      if (TERMINAL_STATUSES.has(view.status as string)) break
      if (view.pending !== null) {
        // A restart can land between the wait and the answer: Hermes may have taken it already.
        const answered = await mcp.call("agent_run_answer", { run_id: r.runId, request_id: view.pending.request_id, answer: "staging" }, { deadline })
        w.counts.answers++
        if (!answered.ok && answered.code !== "bridge.no_pending_request") w.problems.push(`${r.client}/${r.key}: answer refused: ${answered.text}`)
      }
    }
    await follow(mcp, w, r, deadline)
  }
}
