/**
 * One row in full. A skill put shows exactly what approval writes: the whole SKILL.md and every file
 * with its size, SHA-256 and content, the total bytes and the manifest digest, then the line diff
 * against the installed version. A run approval shows the (redacted) command and description, the
 * run, the client and the choices Hermes offered. A pending row ends with the decision buttons.
 */
import { APPROVE_CHOICES, ApprovalChoice, type ApproveChoice } from "../../../domain/approvals.ts"
import type { FileDiff } from "../../../domain/skills/diff.ts"
import { sha256Hex } from "../../../domain/skills/card.ts"
import { SKILL_MD, utf8Bytes } from "../../../domain/skills/limits.ts"
import type { InboxRow, RunApprovalRow, SkillDeleteRow, SkillPutRow } from "../../../services/inbox/Inbox.ts"
import { type Html, html } from "../html.ts"
import { diffSection } from "./diff.ts"
import { age, bytesText, kindLabel, plural, rowHref, stateLabel, visible, when } from "./format.ts"
import { page, type SignedInChrome } from "./layout.ts"

const CHOICE_LABELS: Record<ApproveChoice, string> = {
  once: "Approve once",
  session: "Approve for this session",
  always: "Always approve"
}

/** The approve choices to offer: those Hermes listed (all three when it listed none). */
export const offeredChoices = (row: RunApprovalRow): ReadonlyArray<ApproveChoice> =>
  row.choices.length === 0 ? APPROVE_CHOICES : APPROVE_CHOICES.filter((c) => row.choices.includes(c))

const facts = (row: InboxRow, now: number): Html => html`<dl class="facts">
<dt>Row</dt><dd><code>${row.id}</code></dd>
<dt>State</dt><dd>${stateLabel(row)}</dd>
<dt>Client</dt><dd>${row.client}</dd>
<dt>Pushed</dt><dd>${age(row.created_at, now)} <span class="muted">(${when(row.created_at)})</span></dd>
${row.decided_at === null ? "" : html`<dt>Decided</dt><dd>${when(row.decided_at)}${row.decided_by === null ? "" : ` by ${row.decided_by}`}</dd>`}
</dl>`

const fileSection = (index: number, name: string, size: number, sha256: string, content: string): Html =>
  html`<section class="file" id="file-${index}" aria-labelledby="file-${index}-name">
<h3 id="file-${index}-name"><code>${name}</code></h3>
<p class="muted">${bytesText(size)} · SHA-256 <code class="hash">${sha256}</code></p>
<pre aria-label="Content of ${name}">${visible(content)}</pre>
</section>`

const skillPutBody = (row: SkillPutRow): Html => {
  const card = row.card
  const files: Array<readonly [string, number, string, string]> = [
    [SKILL_MD, utf8Bytes(card.preview), sha256Hex(card.preview), card.preview],
    ...Object.entries(card.files).map(([n, f]) => [n, f.size, f.sha256, f.content] as const)
  ]
  return html`<section aria-labelledby="writes-title">
<h2 id="writes-title">What approval writes</h2>
<dl class="facts">
<dt>Skill</dt><dd><code>${row.name}</code></dd>
<dt>Files</dt><dd>${plural(files.length, "file")}</dd>
<dt>Total</dt><dd>${bytesText(card.bytes)}</dd>
<dt>Digest</dt><dd><code class="hash">${card.digest}</code> <span class="muted">(SHA-256 of the <code>sha256sum</code> manifest of the files)</span></dd>
</dl>
<table>
<caption>Files</caption>
<thead><tr><th scope="col">File</th><th scope="col" class="num">Size</th><th scope="col">SHA-256</th></tr></thead>
<tbody>
${files.map(([n, size, sha], i) => html`<tr><td><a href="#file-${i}"><code>${n}</code></a></td><td class="num">${size}</td><td><code class="hash">${sha}</code></td></tr>
`)}</tbody>
</table>
${files.map(([n, size, sha, content], i) => fileSection(i, n, size, sha, content))}
</section>`
}

const skillDeleteBody = (row: SkillDeleteRow): Html =>
  html`<p>Approving removes the drop-in skill <code>${row.name}</code>. The removed version is parked under the data directory and can be restored with <code>agent-bridge inbox restore</code>.</p>`

/** `row` has already been through the redactor (`displayRunApproval`). */
const runApprovalBody = (row: RunApprovalRow): Html => {
  const unknown = row.choices.filter((c) => !(ApprovalChoice.literals as ReadonlyArray<string>).includes(c))
  return html`<section aria-labelledby="command-title">
<h2 id="command-title">Command</h2>
<pre>${row.command}</pre>
<h2>Why Hermes asks</h2>
<p>${row.description === "" ? html`<span class="muted">(no description)</span>` : row.description}</p>
<dl class="facts">
<dt>Run</dt><dd><code>${row.run_id}</code></dd>
<dt>Agent</dt><dd>${row.agent}</dd>
<dt>Client</dt><dd>${row.client}</dd>
<dt>Hermes run</dt><dd><code>${row.hermes_run_id}</code></dd>
<dt>Request</dt><dd><code>${row.request_id ?? "(Hermes named none)"}</code></dd>
<dt>Choices offered</dt><dd>${row.choices.length === 0 ? "once, session, always (Hermes listed none)" : row.choices.join(", ")}</dd>
${row.choice === null ? "" : html`<dt>Answered</dt><dd>${row.choice}</dd>`}
</dl>
${unknown.length === 0 ? "" : html`<p class="muted">Choices this page does not offer: ${unknown.join(", ")}.</p>`}
</section>`
}

const decisionForm = (row: InboxRow, csrf: string): Html => {
  const buttons =
    row.kind === "run_approval"
      ? [
          ...offeredChoices(row).map((c) => html`<button type="submit" name="decision" value="${c}" class="approve">${CHOICE_LABELS[c]}</button>`),
          html`<button type="submit" name="decision" value="deny" class="deny">Deny</button>`
        ]
      : [
          html`<button type="submit" name="decision" value="approve" class="approve">${row.kind === "skill_put" ? "Approve and install" : "Approve and delete"}</button>`,
          html`<button type="submit" name="decision" value="deny" class="deny">Deny</button>`
        ]
  return html`<form method="post" action="${rowHref(row.id)}" class="actions" aria-label="Decision">
<input type="hidden" name="csrf" value="${csrf}">
${buttons}
</form>`
}

const title = (row: InboxRow): string =>
  row.kind === "run_approval" ? `Run approval for ${row.run_id}` : `${kindLabel(row)}: ${row.name}`

export interface RowPageInput {
  readonly chrome: SignedInChrome
  /** Run approvals already redacted for display. */
  readonly row: InboxRow
  /** Null for run approvals, for decided rows (the installed version has moved on since), and when the installed version could not be read. */
  readonly diff: ReadonlyArray<FileDiff> | null
  readonly now: number
  /** A failed decision, shown above the card. */
  readonly error: string | null
}

export const rowPage = ({ chrome, row, diff, now, error }: RowPageInput): Html =>
  page({
    title: title(row),
    section: "row",
    signedIn: chrome,
    content: html`<p><a href="${row.state === "pending" ? "/inbox" : "/inbox/history"}">← ${row.state === "pending" ? "Pending" : "History"}</a></p>
<h1>${title(row)}</h1>
${error === null ? "" : html`<p class="error" role="alert">${error}</p>`}
${facts(row, now)}
${row.kind === "skill_put" ? skillPutBody(row) : row.kind === "skill_delete" ? skillDeleteBody(row) : runApprovalBody(row)}
${row.kind === "run_approval" ? ""
  : diff !== null ? diffSection(row.name, diff, row.kind === "skill_put" ? "put" : "delete")
  : row.state === "pending" ? html`<p class="error" role="alert">The installed version of <code>${row.name}</code> could not be read, so no diff is shown (the bridge log says why).</p>`
  : ""}
${row.state === "pending" ? decisionForm(row, chrome.csrf) : ""}`
  })

/** A page for a missing row or another error, inside the signed-in shell. */
export const messagePage = (chrome: SignedInChrome, heading: string, text: string): Html =>
  page({
    title: heading,
    section: "error",
    signedIn: chrome,
    content: html`<h1>${heading}</h1>
<p class="error" role="alert">${text}</p>
<p><a href="/inbox">Back to the pending rows</a></p>`
  })
