/**
 * The crash test's final reckoning for one run: read back through the tools, it ended as its kind
 * should, its events are intact, its output is exactly what Hermes streamed (once), Hermes ran it
 * once, what the client saw while following still stands, and a repeated start answers it.
 */
import type { SimRun } from "../../../src/hermes/sim/run.ts"
import type { TrackedRun } from "./crashWorkload.ts"
import type { ResilientMcp } from "./mcpClient.ts"
import { EVENTS_KEPT, eventProblems, readAllEvents, readOutput, textOf, viaMcp } from "./runChecks.ts"

/** What Hermes streamed for a run: its message deltas in order (newer builds keep every frame). */
export const streamedText = (run: SimRun): string =>
  run.frames
    .map((f) => JSON.parse(f.json) as { event: string; delta?: string })
    .filter((e) => e.event === "message.delta")
    .map((e) => e.delta ?? "")
    .join("")

export interface RunVerdict {
  readonly problems: ReadonlyArray<string>
  readonly events: number
  readonly capped: boolean
  readonly status?: string
}

/** Hermes's side, by run input (every input in the test is unique). */
export const hermesRunsByInput = (runs: Iterable<SimRun>) => {
  const byInput = new Map<string, Array<SimRun>>()
  for (const r of runs) byInput.set(r.input, [...(byInput.get(r.input) ?? []), r])
  return byInput
}

export const verifyRun = async (
  mcp: ResilientMcp,
  r: TrackedRun,
  hermes: ReadonlyMap<string, ReadonlyArray<SimRun>>,
  deadline: number,
  /**
   * Also accept `interrupted` with its reason (the replicated chaos test: a run may be ended so
   * when Hermes's side is lost); its output is then checked against its events only.
   */
  allowInterrupted = false
): Promise<RunVerdict> => {
  const where = `${r.client}/${r.key}`
  if (r.runId === null) return { problems: [`${where}: never started`], events: 0, capped: false }
  const problems: Array<string> = []
  const call = viaMcp(mcp, deadline)
  const { output, view } = await readOutput(call, r.runId)
  const events = await readAllEvents(call, r.runId)

  const endedAs = r.kind === "steered" ? "cancelled" : "completed"
  const interrupted = allowInterrupted && view.status === "interrupted"
  if (interrupted && (typeof view.error !== "string" || view.error === "")) problems.push("ended interrupted without a reason")
  if (view.status !== endedAs && !interrupted) problems.push(`ended ${view.status} (${view.error}), not ${endedAs}`)
  problems.push(...eventProblems(events, view.last_seq))
  const inHermes = hermes.get(r.input) ?? []
  if (inHermes.length !== 1) problems.push(`Hermes ran it ${inHermes.length} times`)
  const expected = inHermes[0] === undefined ? null : streamedText(inHermes[0])
  if (output !== expected && !interrupted) problems.push(`output differs from Hermes's (${output.length} vs ${expected?.length} chars)`)
  // The events' text is the output's tail (all of it unless the cap dropped the oldest events).
  const text = textOf(events)
  if (!output.endsWith(text) || (events[0]?.seq === 1 && text !== output)) problems.push("event text is not the output")
  for (const e of events) {
    const seen = r.seen.get(e.seq)
    if (seen !== undefined && seen !== e.type) problems.push(`seq ${e.seq} was ${seen} while following, now ${e.type}`)
  }
  const again = await mcp.call("agent_run", { agent: "hermes", input: r.input, idempotency_key: r.key }, { deadline })
  if (!again.ok || again.value.run_id !== r.runId) problems.push(`a final repeated start answered ${again.ok ? again.value.run_id : again.text}`)
  return { problems: problems.map((p) => `${where}: ${p}`), events: events.length, capped: view.last_seq > EVENTS_KEPT, status: view.status as string }
}
