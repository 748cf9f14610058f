/** How `agent-bridge runs` prints runs: a table for listings, a block for one run, a line per event. */
import type { RunEventsPage, RunView } from "../domain/runs/view.ts"
import { iso } from "../services/runs/views.ts"
import type { RunSummary } from "../services/console/queries.ts"

export const ageText = (ms: number): string => {
  const s = Math.max(0, Math.round(ms / 1000))
  if (s < 60) return `${s}s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m}m`
  const h = Math.floor(m / 60)
  return h < 48 ? `${h}h` : `${Math.floor(h / 24)}d`
}

const tableOf = (head: ReadonlyArray<string>, body: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)))
  return [head, ...body].map((cols) => cols.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd()).join("\n")
}

export const runsTable = (rows: ReadonlyArray<RunSummary>, now: number): string =>
  tableOf(
    ["RUN", "CLIENT", "AGENT", "FACE", "STATUS", "AGE", "LAST EVENT", "TOKENS"],
    rows.map((r) => [
      r.runId,
      r.client,
      r.agent,
      r.face,
      r.operatorStop === "pending" ? `${r.status} (stop requested)` : r.status,
      ageText(now - r.createdAt),
      r.lastEventType === null ? "-" : `${r.lastEventType} ${ageText(now - (r.lastEventAt ?? now))} ago`,
      r.tokens === null ? "-" : String(r.tokens)
    ])
  )

/** One run: its fields, then its output window (already redacted by the run views). */
export const runDetail = (view: RunView, summary: RunSummary | null, follower: string | null = null): string => {
  const lines = [
    `run ${view.run_id}`,
    `  client:   ${view.client}`,
    `  agent:    ${view.agent} (profile ${view.profile})`,
    ...(summary === null ? [] : [`  face:     ${summary.face}`]),
    `  status:   ${view.status}${summary?.operatorStop === null || summary === null ? "" : ` (operator stop: ${summary.operatorStop})`}`,
    ...(follower === null ? [] : [`  follower: ${follower}`]),
    `  created:  ${view.created_at}`,
    `  updated:  ${view.updated_at}`,
    `  tokens:   ${summary?.tokens ?? "-"}${view.usage === null ? "" : ` ${JSON.stringify(view.usage)}`}`,
    `  events:   ${view.last_seq}`,
    `  input:    ${view.input_preview}`,
    ...(view.error === null ? [] : [`  error:    ${view.error}`]),
    ...(view.pending === null || view.pending.kind === "approval" ? [] : [`  question: ${view.pending.question}`]),
    ...(view.awaiting_approval === undefined ? [] : [`  approval: ${view.awaiting_approval.command} (inbox ${view.awaiting_approval.approval_id})`]),
    "",
    view.output === null
      ? "(no output yet)"
      : `output, bytes ${view.output_offset}–${view.output_offset + Buffer.byteLength(view.output, "utf8")} of ${view.output_total}:\n${view.output}`,
    ...(view.next_offset === null ? [] : ["", `(more: agent-bridge runs show ${view.run_id} --offset ${view.next_offset})`])
  ]
  return lines.join("\n")
}

export const eventsText = (page: RunEventsPage): string =>
  page.events.length === 0
    ? "(no events)"
    : page.events.map((e) => `${String(e.seq).padStart(4)}  ${e.at}  ${e.type}  ${JSON.stringify(e.data)}`).join("\n")

export { iso }
