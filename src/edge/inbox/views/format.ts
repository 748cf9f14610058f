/** Small pieces the inbox views share: ages, sizes, row subjects, state labels, and text safe to show. */
import { showInvisible } from "../../../domain/skills/invisible.ts"
import type { InboxRow, InboxState, RunApprovalRow } from "../../../services/inbox/Inbox.ts"
import { type Html, html } from "../html.ts"

/** "42 s ago", "5 min ago", "3 h ago", "2 days ago" (the script keeps these current). */
export const ageText = (ms: number): string => {
  const s = Math.max(0, Math.round(ms / 1000))
  if (s < 60) return `${s} s ago`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m} min ago`
  const h = Math.floor(m / 60)
  if (h < 48) return `${h} h ago`
  return `${Math.floor(h / 24)} days ago`
}

/** A `<time>` with the exact instant as its machine value and tooltip, and the age as its text. */
export const age = (iso: string, now: number): Html => {
  const at = Date.parse(iso)
  return html`<time class="age" datetime="${iso}" title="${iso}">${Number.isNaN(at) ? iso : ageText(now - at)}</time>`
}

export const when = (iso: string): Html => html`<time datetime="${iso}">${iso.replace("T", " ").replace(/\.\d+Z$/, "Z")}</time>`

export const bytesText = (n: number): string =>
  n < 1024 ? `${n} bytes` : `${(n / 1024).toFixed(1)} KiB (${n.toLocaleString("en-US")} bytes)`

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/**
 * Text from a remote agent or from Hermes as it is shown: every character a person would not see
 * (controls, bidi overrides, zero-width characters) is spelled out as `\u{…}`. HTML escaping is the
 * template's job; this is about the operator reading what is really there.
 */
export const visible = (s: string): string => showInvisible(s)

/** A run approval's words as shown: through the redactor first, then made visible. */
export const displayRunApproval = (row: RunApprovalRow, redact: (s: string) => string): RunApprovalRow => ({
  ...row,
  command: visible(redact(row.command)),
  description: visible(redact(row.description))
})

export const kindLabel = (row: InboxRow): string =>
  row.kind === "skill_put" ? "Skill put" : row.kind === "skill_delete" ? "Skill delete" : "Run approval"

const oneLine = (s: string, max: number): string => {
  const flat = s.replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/** One line saying what a row proposes (run approvals already passed through `displayRunApproval`). */
export const subject = (row: InboxRow): Html => {
  switch (row.kind) {
    case "skill_put":
      return html`Install skill <strong>${row.name}</strong> <span class="muted">(${plural(Object.keys(row.card.files).length + 1, "file")}, ${bytesText(row.card.bytes)})</span>`
    case "skill_delete":
      return html`Delete skill <strong>${row.name}</strong>`
    case "run_approval":
      return html`Run <code>${oneLine(row.command, 80)}</code> <span class="muted">on ${row.agent}</span>`
  }
}

export const STATE_LABELS: Record<InboxState, string> = {
  pending: "Pending",
  approved: "Approved",
  denied: "Denied",
  expired: "Expired",
  withdrawn: "Withdrawn"
}

export const stateLabel = (row: InboxRow): Html => {
  const choice = row.kind === "run_approval" && row.state === "approved" && row.choice !== null ? ` (${row.choice})` : ""
  return html`<span class="state state-${row.state}">${STATE_LABELS[row.state]}${choice}</span>`
}

export const rowHref = (id: string) => `/inbox/rows/${encodeURIComponent(id)}`
