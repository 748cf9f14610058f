/**
 * One A2A stream of a task (`SendStreamingMessage`, `SubscribeToTask`) over the runs service, step
 * by step: the first step is the Task as it stands (the spec's first event); each next step follows
 * the run (`Runs.watch`: its signal and the change feed, as `agent_run_wait` waits; no timer) until
 * it moves, and answers what changed, as status updates and output artifact updates. The stream ends at a
 * terminal state, and for `SendStreamingMessage` also at INPUT_REQUIRED (an interrupted state: the
 * client's turn). A step is a short program the handler runs as the caller; between steps nothing
 * runs, so a closed stream leaves nothing behind.
 *
 * The output goes out as `output` artifact updates: every text is a window of the run's view (so
 * redacted like every other read, at most 16 KiB each), the first with `append: false`, then
 * appended, `lastChunk` on the one sent at the end; never past A2A_ARTIFACT_MAX_BYTES. While the
 * run is live, a window at the live edge is sent only up to its last line break: the Redactor masks
 * a trailing token prefix there, which the next read may show differently. At the end the whole
 * output is read once as GetTask reads it; if what was streamed is not its beginning (a masked
 * prefix, or Hermes's final text replacing the streamed one), the artifact is sent again whole
 * (`append: false`), so the client always ends with what GetTask would show.
 */
import { createHash } from "node:crypto"
import type { Artifact, StreamResponse, TaskStatus } from "@a2a-js/sdk"
import { Effect, Option, Stream } from "effect"
import type { BridgeError } from "../../domain/errors.ts"
import { A2A_ARTIFACT_MAX_BYTES } from "../../domain/limits.ts"
import { isTerminal, type RunView } from "../../domain/runs/view.ts"
import { Runs } from "../../services/runs/Runs.ts"
import type { Caller } from "../../request/Caller.ts"
import { contextOf, taskOf, textPart } from "./taskOfRun.ts"
import { isEnded, needsClient, phaseOf, type RunPhase } from "../../domain/runs/phase.ts"
import type { A2AEnv } from "./env.ts"

export type StreamMode = "send" | "subscribe"

export interface StreamStep {
  readonly events: ReadonlyArray<StreamResponse>
  /** The stream is over after these events. */
  readonly done: boolean
}

const statusStamp = (s: TaskStatus) => `${s.state}\u0000${JSON.stringify(s.message?.parts ?? [])}`

/** Where a stream stops: a terminal state, or (SendStreamingMessage) the client's turn. */
const endsStream = (phase: RunPhase, mode: StreamMode) => isEnded(phase) || (mode === "send" && needsClient(phase))

/** The windows of the output as GetTask reads them: from `first` (offset 0), up to A2A_ARTIFACT_MAX_BYTES. */
export const outputWindows = (first: RunView): Effect.Effect<{ readonly windows: Array<string>; readonly complete: boolean }, BridgeError, Runs | Caller> =>
  Effect.gen(function* () {
    const runs = yield* Runs
    const windows = [first.output ?? ""]
    let view = first
    while (view.next_offset !== null && view.next_offset < A2A_ARTIFACT_MAX_BYTES) {
      view = yield* runs.status(first.run_id, view.next_offset)
      windows.push(view.output ?? "")
    }
    return { windows, complete: view.next_offset === null }
  })

export const makeTaskStream = (runId: string, mode: StreamMode, historyLength: number | undefined) => {
  let status = ""
  let seenSeq = -1
  // The output streamed so far: the raw byte offset of the window being sent, what of it was sent.
  let offset = 0
  let tail = ""
  let started = false
  let sentChars = 0
  const sent = createHash("sha256")
  let finished = false

  const artifactEvent = (view: RunView, parts: ReadonlyArray<string>, append: boolean, lastChunk: boolean, complete = true): StreamResponse => {
    const artifact: Artifact = {
      artifactId: "output",
      name: "output",
      description: complete ? "The run's output." : "The run's output, cut at the bridge's artifact limit: read the rest with agent_run_status.",
      parts: parts.map(textPart),
      metadata: lastChunk ? { output_total: view.output_total, complete } : undefined,
      extensions: []
    }
    return { payload: { $case: "artifactUpdate", value: { taskId: view.run_id, contextId: contextOf(view), artifact, append, lastChunk, metadata: undefined } } }
  }

  const sendText = (view: RunView, text: string, out: Array<StreamResponse>) => {
    if (text.length === 0) return
    out.push(artifactEvent(view, [text], started, false))
    started = true
    sent.update(text)
    sentChars += text.length
  }

  /** The output that appeared since the last step, while the run is live. */
  const liveOutput = (first: RunView, out: Array<StreamResponse>) =>
    Effect.gen(function* () {
      const runs = yield* Runs
      let view = first
      for (let windows = 0; windows <= A2A_ARTIFACT_MAX_BYTES / 1024 && offset < A2A_ARTIFACT_MAX_BYTES; windows++) {
        if (offset !== view.output_offset) view = yield* runs.status(runId, offset)
        const text = view.output ?? ""
        const whole = view.next_offset !== null || isTerminal(view.status)
        const ready = whole ? text : text.slice(0, text.lastIndexOf("\n") + 1)
        // A window that no longer starts as it was sent is left to the check at the end.
        if (ready.startsWith(tail)) {
          sendText(view, ready.slice(tail.length), out)
          tail = ready
        }
        if (view.next_offset === null) return
        offset = view.next_offset
        tail = ""
      }
    })

  /** The end: what is left of the output (or all of it again), then the last status. */
  const finalOutput = (view: RunView, out: Array<StreamResponse>) =>
    Effect.gen(function* () {
      if (view.output === null) return
      const first = view.output_offset === 0 ? view : yield* Effect.flatMap(Runs, (runs) => runs.status(runId, 0))
      const { windows, complete } = yield* outputWindows(first)
      const all = windows.join("")
      const prefix = createHash("sha256").update(all.slice(0, sentChars)).digest("hex")
      const continues = started && all.length >= sentChars && prefix === sent.digest("hex")
      if (!continues) {
        // Sent again whole: one event per window (each a bounded 16 KiB window).
        windows.forEach((w, i) => out.push(artifactEvent(view, [w], i > 0, i === windows.length - 1, complete)))
        return
      }
      let skip = sentChars
      const rest: Array<string> = []
      for (const w of windows) {
        if (skip >= w.length) {
          skip -= w.length
          continue
        }
        rest.push(w.slice(skip))
        skip = 0
      }
      if (rest.length === 0) rest.push("")
      rest.forEach((w, i) => out.push(artifactEvent(view, [w], true, i === rest.length - 1, complete)))
    })

  /** The events for `view` (the run as read now). */
  const changes = (view: RunView) =>
    Effect.gen(function* () {
      const out: Array<StreamResponse> = []
      seenSeq = view.last_seq
      const task = taskOf(view, { historyLength })
      const ends = endsStream(phaseOf(view), mode)
      if (isTerminal(view.status)) yield* finalOutput(view, out)
      else yield* liveOutput(view, out)
      const stamp = task.status === undefined ? "" : statusStamp(task.status)
      if (stamp !== status && task.status !== undefined) {
        status = stamp
        out.push({ payload: { $case: "statusUpdate", value: { taskId: view.run_id, contextId: task.contextId, status: task.status, metadata: undefined } } })
      }
      finished = ends
      return { events: out, done: ends }
    })

  /** The first step: the Task as it stands (its output follows as artifact updates). */
  const first = (view: RunView): Effect.Effect<StreamStep, BridgeError, A2AEnv> =>
    Effect.gen(function* () {
      const task = taskOf(view, { historyLength })
      status = task.status === undefined ? "" : statusStamp(task.status)
      const head: StreamResponse = { payload: { $case: "task", value: task } }
      const rest = yield* changes(view)
      return { events: [head, ...rest.events], done: rest.done }
    })

  /** A view with something new to say: a later event, or another status. */
  const moved = (view: RunView) => {
    if (view.last_seq !== seenSeq || isTerminal(view.status)) return true
    const task = taskOf(view, { historyLength })
    return task.status !== undefined && statusStamp(task.status) !== status
  }

  /**
   * The next step: follows the run (`Runs.watch`: its signal and the change feed, no timer) until
   * it has moved, then answers what changed (no events when nothing new was to be said).
   */
  const next: Effect.Effect<StreamStep, BridgeError, A2AEnv> = Effect.gen(function* () {
    if (finished) return { events: [], done: true }
    const runs = yield* Runs
    const changed = yield* runs.watch(runId).pipe(Stream.filter(moved), Stream.runHead)
    // The watch ends after the run's end, which always moves: none only for a run gone meanwhile.
    return yield* changes(Option.isSome(changed) ? changed.value : yield* runs.status(runId, offset))
  })

  return { first, next }
}
