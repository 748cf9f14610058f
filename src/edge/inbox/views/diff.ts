/** A row's per-file diff against the installed skill, as marked-up unified diffs. */
import type { FileDiff } from "../../../domain/skills/diff.ts"
import { type Html, html } from "../html.ts"
import { visible } from "./format.ts"

const lineClass = (line: string): string =>
  line.startsWith("+++") || line.startsWith("---") ? "head"
    : line.startsWith("@@") ? "hunk"
    : line.startsWith("+") ? "add"
    : line.startsWith("-") ? "remove"
    : "same"

/** Each line is a block of its own (so no newline between them); the +/- marks stay for colour-blind readers. */
export const unifiedDiffHtml = (diff: string): Html => {
  const lines = diff.replace(/\n$/, "").split("\n")
  return html`<pre class="diff">${lines.map((l) => html`<span class="${lineClass(l)}">${visible(l) === "" ? " " : visible(l)}</span>`)}</pre>`
}

const CHANGE_TEXT: Record<FileDiff["change"], string> = {
  added: "added",
  removed: "removed",
  changed: "changed",
  unchanged: "unchanged"
}

/** True when the diff was taken against an installed version (SKILL.md is then never "added"). */
export const hasInstalled = (diff: ReadonlyArray<FileDiff>): boolean =>
  diff.some((d) => d.file === "SKILL.md" && d.change !== "added")

export const diffSection = (name: string, diff: ReadonlyArray<FileDiff>, kind: "put" | "delete"): Html => {
  if (!hasInstalled(diff)) {
    return html`<section aria-labelledby="diff-title">
<h2 id="diff-title">Against the installed version</h2>
<p>${kind === "put" ? `No drop-in skill '${name}' is installed: approving creates it.` : `No drop-in skill '${name}' is installed: there is nothing to delete.`}</p>
</section>`
  }
  const changed = diff.filter((d) => d.change !== "unchanged")
  return html`<section aria-labelledby="diff-title">
<h2 id="diff-title">${kind === "put" ? "Line diff against the installed version" : "What approval removes"}</h2>
<p>${kind === "put" ? "Approving replaces the whole installed skill; the installed version is parked and can be restored." : "Approving parks the installed skill (it can be restored) and removes it."}</p>
<ul>
${diff.map((d) => html`<li><code>${d.file}</code>: ${CHANGE_TEXT[d.change]}${d.diff === null ? " (not text; not shown)" : ""}</li>
`)}</ul>
${changed.map((d) => html`<section class="file" aria-label="Diff of ${d.file}">
<h3>${d.file} <span class="muted">(${CHANGE_TEXT[d.change]})</span></h3>
${d.diff === null ? html`<p class="muted">The installed file is not text; it is not shown.</p>` : d.diff === "" ? "" : unifiedDiffHtml(d.diff)}
</section>
`)}
</section>`
}
