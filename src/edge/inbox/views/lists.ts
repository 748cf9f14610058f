/** The pending list (newest first) and the history of decided rows (most recently decided first). */
import type { InboxRow } from "../../../services/inbox/Inbox.ts"
import { type Html, html } from "../html.ts"
import { age, kindLabel, plural, rowHref, stateLabel, subject, when } from "./format.ts"
import { page, type SignedInChrome } from "./layout.ts"

/** History shows this many rows; older ones stay in the database and in `agent-bridge inbox list`. */
export const HISTORY_SHOWN = 200

const reviewLink = (row: InboxRow) =>
  html`<a href="${rowHref(row.id)}" id="review-${row.id}">Review<span class="sr-only"> ${kindLabel(row).toLowerCase()} ${row.id}</span></a>`

/** After a decision: which row, and what happened to it (looked up, never echoed from the URL). */
export const decidedNotice = (row: InboxRow): Html =>
  html`<p class="notice" role="status">${stateLabel(row)}: ${subject(row)} <span class="muted">· from ${row.client} · <a href="${rowHref(row.id)}">${row.id}</a></span></p>`

export const pendingPage = (chrome: SignedInChrome, rows: ReadonlyArray<InboxRow>, now: number, notice: Html | null, connections: Html | null = null): Html =>
  page({
    title: "Pending",
    section: "pending",
    signedIn: chrome,
    content: html`<h1>Pending</h1>
${notice ?? ""}${connections ?? ""}
${rows.length === 0
  ? html`<p class="empty">Nothing is waiting for you. New skill changes and run approvals appear here as they arrive.</p>`
  : html`<table>
<caption>${plural(rows.length, "row")} waiting for a decision, newest first</caption>
<thead><tr><th scope="col">Kind</th><th scope="col">What</th><th scope="col">Client</th><th scope="col">Age</th><th scope="col"><span class="sr-only">Action</span></th></tr></thead>
<tbody>
${rows.map((r) => html`<tr data-row="${r.id}">
<td>${kindLabel(r)}</td>
<td>${subject(r)}</td>
<td>${r.client}</td>
<td>${age(r.created_at, now)}</td>
<td>${reviewLink(r)}</td>
</tr>
`)}</tbody>
</table>`}`
  })

const decidedAt = (row: InboxRow): string => row.decided_at ?? row.created_at

export const historyPage = (chrome: SignedInChrome, rows: ReadonlyArray<InboxRow>, now: number): Html => {
  const decided = rows
    .filter((r) => r.state !== "pending")
    .sort((a, b) => (decidedAt(a) < decidedAt(b) ? 1 : decidedAt(a) > decidedAt(b) ? -1 : 0))
  const shown = decided.slice(0, HISTORY_SHOWN)
  return page({
    title: "History",
    section: "history",
    signedIn: chrome,
    content: html`<h1>History</h1>
${shown.length === 0
  ? html`<p class="empty">No row has been decided yet.</p>`
  : html`<table>
<caption>${plural(decided.length, "decided row")}, most recently decided first${decided.length > shown.length ? `; the newest ${shown.length} are shown` : ""}</caption>
<thead><tr><th scope="col">Outcome</th><th scope="col">What</th><th scope="col">Client</th><th scope="col">Pushed</th><th scope="col">Decided</th><th scope="col"><span class="sr-only">Details</span></th></tr></thead>
<tbody>
${shown.map((r) => html`<tr data-row="${r.id}">
<td>${stateLabel(r)}</td>
<td>${subject(r)}</td>
<td>${r.client}</td>
<td>${age(r.created_at, now)}</td>
<td>${r.decided_at === null ? "" : when(r.decided_at)}${r.decided_by === null ? "" : html` <span class="muted">by ${r.decided_by}</span>`}</td>
<td><a href="${rowHref(r.id)}">Details<span class="sr-only"> of ${r.id}</span></a></td>
</tr>
`)}</tbody>
</table>`}`
  })
}
